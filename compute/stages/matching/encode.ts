/**
 * @module Pair results as bytes, for a batch matched on another container (compute/service),
 * framed by util/framed.ts: a JSON header (per pair: its images, counts, how it was searched
 * and verified or why not), then each verified pair's matches (u32) and its F and H (f64) raw,
 * each padded to 8 bytes. Doubles go as bytes, so the pairs are bit for bit those of
 * the container that matched them.
 */
import type { VerifiedPair } from "../../scene/matches.js";
import { decodeFramed, encodeFramed } from "../../util/framed.js";
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

const bytesOf = (a: Uint32Array | Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

export function encodePairResults(results: PairResult[]): Uint8Array {
  const headers: PairHeader[] = results.map(({ a, b, putative, guided, search, reason, pair }) => ({
    a, b, putative, guided,
    ...(search ? { search } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(pair ? { pair: { model: pair.model, homographyRatio: pair.homographyRatio, matches: pair.matches.length / 2, F: pair.F !== undefined, H: pair.H !== undefined } } : {}),
  }));
  const parts = results.flatMap(({ pair }) => (pair ? [pair.matches, ...(pair.F ? [pair.F] : []), ...(pair.H ? [pair.H] : [])].map(bytesOf) : []));
  return encodeFramed(MAGIC, headers, parts, 8);
}

export function decodePairResults(bytes: Uint8Array): PairResult[] {
  const { header: headers, take } = decodeFramed<PairHeader[]>(bytes, MAGIC, 8, "matching", "pair batch result");
  return headers.map((h) => {
    const result: PairResult = { a: h.a, b: h.b, putative: h.putative, guided: h.guided, ...(h.search ? { search: h.search } : {}), ...(h.reason !== undefined ? { reason: h.reason } : {}) };
    if (h.pair) {
      const matches = new Uint32Array(take(8 * h.pair.matches).buffer);
      const F = h.pair.F ? new Float64Array(take(72).buffer) : undefined;
      const H = h.pair.H ? new Float64Array(take(72).buffer) : undefined;
      result.pair = { imageA: h.a, imageB: h.b, matches, model: h.pair.model, ...(F ? { F } : {}), ...(H ? { H } : {}), homographyRatio: h.pair.homographyRatio };
    }
    return result;
  });
}
