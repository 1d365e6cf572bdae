/** @module Routes of /reconstructions (being built). */
import { Hono } from "hono";
import type { AppEnv } from "../app.js";

export const reconstructionsRoutes = new Hono<AppEnv>();
