/** @module Routes of /admin (being built). */
import { Hono } from "hono";
import type { AppEnv } from "../app.js";

export const adminRoutes = new Hono<AppEnv>();
