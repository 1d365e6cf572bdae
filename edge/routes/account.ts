/** @module Routes of /account (being built). */
import { Hono } from "hono";
import type { AppEnv } from "../app.js";

export const accountRoutes = new Hono<AppEnv>();
