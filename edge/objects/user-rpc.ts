/**
 * @module What a caller may ask of a UserObject (edge/objects/user.ts): registration, the
 * stored credentials and the sessions. Its own module, so that env.ts types the binding without
 * importing the object (which imports env.ts).
 */
import { z } from "zod";

export const Registration = z.object({
  email: z.email().max(320),
  accountId: z.string().regex(/^acc_[0-9A-Za-z]{22}$/),
  passwordHash: z.string().startsWith("pbkdf2-sha256$"),
});
export type Registration = z.infer<typeof Registration>;

export interface SessionUser {
  email: string;
  accountId: string;
}

export interface UserRpc extends Rpc.DurableObjectBranded {
  register(input: Registration): boolean;
  credentials(): { accountId: string; passwordHash: string } | null;
  setPassword(passwordHash: string): boolean;
  openSession(tokenHash: string, ttlSeconds: number): boolean;
  session(tokenHash: string): SessionUser | null;
  endSession(tokenHash: string): void;
  endOtherSessions(keepTokenHash: string | null): void;
  remove(): Promise<void>;
}
