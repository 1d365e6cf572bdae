/** @module Routes of /cdn (being built). */
import { Hono } from "hono";
import type { AppEnv } from "../app.js";

export const cdnRoutes = new Hono<AppEnv>();
