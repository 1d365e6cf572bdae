/**
 * @module Where the CLI finds its API key and base URL. Precedence, most specific first:
 * the `--api-url` flag, the environment (`PHOTOGRAMMETRY_API_KEY`, `PHOTOGRAMMETRY_API_URL`),
 * then the config file (`$XDG_CONFIG_HOME/photogrammetry/config.json`, by default
 * `~/.config/photogrammetry/config.json`: `{"api_key": "...", "api_url": "..."}`).
 * There is no `--api-key` flag on purpose: a key on a command line ends up in `ps` and shell history.
 */
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MissingKeyError, UsageError } from "./exit-codes.js";

export const DEFAULT_API_URL = "http://127.0.0.1:8787";

export interface CliConfig {
  apiKey: string;
  apiUrl: string;
}

export function configFilePath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), ".config");
  return path.join(base, "photogrammetry", "config.json");
}

async function readConfigFile(file: string): Promise<{ api_key?: string; api_url?: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  try {
    return JSON.parse(text) as { api_key?: string; api_url?: string };
  } catch {
    throw new UsageError(`${file} is not valid JSON`);
  }
}

export async function loadConfig(flagUrl: string | undefined, env: NodeJS.ProcessEnv): Promise<CliConfig> {
  const file = configFilePath(env);
  const stored = await readConfigFile(file);
  const apiKey = env.PHOTOGRAMMETRY_API_KEY || stored.api_key;
  if (!apiKey) throw new MissingKeyError(`no API key: set PHOTOGRAMMETRY_API_KEY or put {"api_key": "..."} in ${file}`);
  return { apiKey, apiUrl: flagUrl || env.PHOTOGRAMMETRY_API_URL || stored.api_url || DEFAULT_API_URL };
}
