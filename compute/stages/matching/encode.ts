/**
 * @module Pair results as bytes, for a batch matched on another container (compute/service):
 * magic, header length (u32 LE), a JSON header (per pair: its images, counts, how it was
 * searched and verified or why not), then each verified pair's matches (u32) and its F and H
 * (f64) raw, each padded to 8 bytes. Doubles go as bytes, so the pairs are bit for bit those of
 * the container that matched them.
 */
import type { VerifiedPair } from "../../scene/matches.js";
import type { PairResult } from "./pair.js";

const MAGIC = 0x4d544231; // "MTB1"

interface PairHeader {
  a: number;
  b: number;
  putative: number;
  guided: boolean;
  search?: PairResult["search"];
  reason?: string;
  pair?: { model: VerifiedPair["model"]; homographyRatio: number; matches: number; F: boolean; H: boolean };
}

const align8 = (n: number) => (n + 7) & ~7;
const bytesOf = (a: Uint32Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export function encodePairResults(results: PairResult[]): Uint8Array {
  const headers: PairHeader[] = results.map(({ a, b, putative, guided, search, reason, pair }) => ({
    a, b, putative, guided,
    ...(search ? { search } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(pair ? { pair: { model: pair.model, homographyRatio: pair.homographyRatio, matches: pair.matches.length / 2, F: pair.F !== undefined, H: pair.H !== undefined } } : {}),
  }));
  const headerBytes = new TextEncoder().encode(JSON.stringify(headers));
  const parts = results.flatMap(({ pair }) => (pair ? [pair.matches, ...(pair.F ? [pair.F] : []), ...(pair.H ? [pair.H] : [])].map(bytesOf) : []));
  let size = align8(8 + headerBytes.byteLength);
  for (const part of parts) size += align8(part.byteLength);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, headerBytes.byteLength, true);
  out.set(headerBytes, 8);
  let at = align8(8 + headerBytes.byteLength);
  for (const part of parts) {
    out.set(part, at);
    at += align8(part.byteLength);
  }
  return out;
}

export function decodePairResults(bytes: Uint8Array): PairResult[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8 || view.getUint32(0, true) !== MAGIC) throw new Error("matching: not a pair batch result");
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > bytes.byteLength) throw new Error("matching: truncated pair batch result");
  const headers = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as PairHeader[];
  let at = align8(8 + headerLength);
  // Copies, so each array is aligned and owns its memory.
  const take = (length: number): ArrayBuffer => {
    if (at + length > bytes.byteLength) throw new Error("matching: truncated pair batch result");
    const part = bytes.slice(at, at + length).buffer;
    at += align8(length);
    return part;
  };
  return headers.map((h) => {
    const result: PairResult = { a: h.a, b: h.b, putative: h.putative, guided: h.guided, ...(h.search ? { search: h.search } : {}), ...(h.reason !== undefined ? { reason: h.reason } : {}) };
    if (h.pair) {
      const matches = new Uint32Array(take(8 * h.pair.matches));
      const F = h.pair.F ? new Float64Array(take(72)) : undefined;
      const H = h.pair.H ? new Float64Array(take(72)) : undefined;
      result.pair = { imageA: h.a, imageB: h.b, matches, model: h.pair.model, ...(F ? { F } : {}), ...(H ? { H } : {}), homographyRatio: h.pair.homographyRatio };
    }
    return result;
  });
}
