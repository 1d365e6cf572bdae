/**
 * @module Passwords: the sign-up policy and their stored form.
 *
 * PBKDF2-HMAC-SHA-256 through WebCrypto, 100,000 iterations (the most workerd allows for
 * PBKDF2; scrypt and Argon2 are not in WebCrypto), a 16-byte random salt per password, a 32-byte
 * derived key. The stored form names the algorithm and the iteration count, so raising the cost
 * later can re-hash at the next sign-in. Comparison is constant-time.
 */
const ITERATIONS = 100_000;
const SALT_BYTES = 16;
const KEY_BITS = 256;
export const MIN_PASSWORD_LENGTH = 10;

/** Common passwords of at least 10 characters (from public breach top lists), lower-cased. */
const COMMON_PASSWORDS = new Set([
  "1234567890", "0123456789", "0987654321", "1111111111", "0000000000", "1234512345", "1q2w3e4r5t", "1qaz2wsx3edc",
  "qwertyuiop", "asdfghjkl;", "zxcvbnm123", "password12", "password123", "password1234", "passw0rd123", "iloveyou12",
  "qwerty1234", "qwerty12345", "qwerty123456", "abcdefghij", "abcd123456", "abc1234567", "1234qwerty", "123456789a",
  "a123456789", "1234567890a", "princess12", "football12", "baseball12", "sunshine12", "starwars12", "superman12",
  "letmein123", "welcome123", "trustno123", "administrator", "changeme123", "photogrammetry", "dragon1234",
  "monkey1234", "michael123", "charlie123", "qazwsxedcrfv", "1q2w3e4r5t6y", "zaq12wsxcde3", "aaaaaaaaaa",
  "password!!", "password01", "iloveyou123", "11111111111", "123123123123", "12344321aa", "987654321a",
]);

/** A reason the password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > 1024) return "The password must have at most 1024 characters.";
  if (COMMON_PASSWORDS.has(password.toLowerCase())) return "This password is among the most common ones; choose another.";
  if (new Set(password).size < 4) return "The password repeats too few different characters; choose another.";
  return null;
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, KEY_BITS);
  return new Uint8Array(bits);
}

/** `pbkdf2-sha256$<iterations>$<salt b64>$<key b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return `pbkdf2-sha256$${ITERATIONS}$${b64(salt)}$${b64(await derive(password, salt, ITERATIONS))}`;
}

/**
 * True when `password` matches `stored`. With `stored` null (no such account) it still derives
 * a key, so an unknown email takes as long to refuse as a wrong password.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? `pbkdf2-sha256$${ITERATIONS}$${b64(new Uint8Array(SALT_BYTES))}$${b64(new Uint8Array(KEY_BITS / 8))}`).split("$");
  const iterations = Number(parts[1]);
  if (parts.length !== 4 || parts[0] !== "pbkdf2-sha256" || !Number.isInteger(iterations) || iterations < 1 || iterations > ITERATIONS) return false;
  const expected = unb64(parts[3]);
  const actual = await derive(password, unb64(parts[2]), iterations);
  return expected.length === actual.length && crypto.subtle.timingSafeEqual(expected, actual) && stored !== null;
}
