/** @module Routes of /docs (being built). */
import { Hono } from "hono";
import type { AppEnv } from "../app.js";

export const docsRoutes = new Hono<AppEnv>();
