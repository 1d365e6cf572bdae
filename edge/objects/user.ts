/**
 * @module UserObject: one SQLite Durable Object per dashboard sign-in, named by a keyed hash of
 * the normalised email (edge/dashboard/users.ts), so looking a user up by email touches only that
 * user's object: no global user table on the request path.
 *
 * It holds the password hash, the account it signs in to, and the user's sessions (by the
 * SHA-256 of the session secret; the secret itself lives only in the browser's cookie). Sessions
 * are server-side so that sign-out, a password change and account deletion end them at once.
 * Like the AccountObject, the schema exists only once a user registered, so probing an unknown
 * email writes nothing.
 */
import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../env.js";
import { Registration, type SessionUser, type UserRpc } from "./user-rpc.js";

const TokenHash = z.string().regex(/^[0-9a-f]{64}$/);
const Ttl = z.number().int().positive();

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS user (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    email TEXT NOT NULL, account_id TEXT NOT NULL, password_hash TEXT NOT NULL, created_at TEXT NOT NULL,
    -- Seam for email verification: set when a verification link is followed (none is sent locally).
    email_verified_at TEXT);
  CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY, created_at_ms INTEGER NOT NULL, expires_at_ms INTEGER NOT NULL);
`;

export class UserObject extends DurableObject<Env> implements UserRpc {
  private readonly sql = this.ctx.storage.sql;

  /** Registers the user; false when this email is already taken (nothing changes then). */
  register(input: Registration): boolean {
    const data = Registration.parse(input);
    return this.ctx.storage.transactionSync(() => {
      this.sql.exec(SCHEMA);
      if (this.sql.exec("SELECT 1 FROM user").toArray().length > 0) return false;
      this.sql.exec("INSERT INTO user (singleton, email, account_id, password_hash, created_at) VALUES (1, ?, ?, ?, ?)", data.email, data.accountId, data.passwordHash, new Date().toISOString());
      return true;
    });
  }

  /** The stored password hash and account; null when no user has this email. */
  credentials(): { accountId: string; passwordHash: string } | null {
    if (!this.registered()) return null;
    const row = this.sql.exec<{ account_id: string; password_hash: string }>("SELECT account_id, password_hash FROM user").one();
    return { accountId: row.account_id, passwordHash: row.password_hash };
  }

  setPassword(passwordHash: string): boolean {
    Registration.shape.passwordHash.parse(passwordHash);
    if (!this.registered()) return false;
    this.sql.exec("UPDATE user SET password_hash = ?", passwordHash);
    return true;
  }

  openSession(tokenHash: string, ttlSeconds: number): boolean {
    TokenHash.parse(tokenHash);
    const ttl = Ttl.parse(ttlSeconds);
    if (!this.registered()) return false;
    const now = Date.now();
    this.sql.exec("DELETE FROM sessions WHERE expires_at_ms <= ?", now);
    this.sql.exec("INSERT INTO sessions (token_hash, created_at_ms, expires_at_ms) VALUES (?, ?, ?)", tokenHash, now, now + ttl * 1000);
    return true;
  }

  /** The signed-in user for a live session; null for an unknown, ended or expired one. */
  session(tokenHash: string): SessionUser | null {
    if (!TokenHash.safeParse(tokenHash).success || !this.registered()) return null;
    const live = this.sql.exec("SELECT 1 FROM sessions WHERE token_hash = ? AND expires_at_ms > ?", tokenHash, Date.now()).toArray().length > 0;
    if (!live) return null;
    const row = this.sql.exec<{ email: string; account_id: string }>("SELECT email, account_id FROM user").one();
    return { email: row.email, accountId: row.account_id };
  }

  endSession(tokenHash: string): void {
    if (!TokenHash.safeParse(tokenHash).success || !this.registered()) return;
    this.sql.exec("DELETE FROM sessions WHERE token_hash = ?", tokenHash);
  }

  /** Ends every session but `keepTokenHash` (the one that changed the password). */
  endOtherSessions(keepTokenHash: string | null): void {
    if (!this.registered()) return;
    this.sql.exec("DELETE FROM sessions WHERE token_hash != ?", keepTokenHash ?? "");
  }

  /** Forgets the user and all sessions; the email can sign up again afterwards. */
  async remove(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private registered(): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'user'").toArray().length > 0 &&
      this.sql.exec("SELECT 1 FROM user").toArray().length > 0;
  }
}
