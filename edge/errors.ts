/** @module The edge's own error type; `app.onError` turns it into the envelope of docs/API.md "Errors". */
import { statusOf, type ErrorCode } from "../shared/errors.js";

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly suggestion: string;
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, suggestion = "", headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.suggestion = suggestion;
    this.headers = headers;
  }
  get status(): number {
    return statusOf(this.code);
  }
}
