/**
 * @module Colour-space rules of the formats. The pipeline keeps colours as 8-bit sRGB (as the
 * photos are); glTF's COLOR_0 is linear (glTF 2.0 §3.7.2.1, "vertex color … linear"), so the
 * glTF exporter converts, while textures, PLY, LAS and OBJ stay sRGB as their readers expect.
 */

/** sRGB electro-optical transfer (IEC 61966-2-1): encoded 0–1 → linear 0–1. */
export function srgbToLinear(encoded: number): number {
  return encoded <= 0.04045 ? encoded / 12.92 : ((encoded + 0.055) / 1.055) ** 2.4;
}

/** linear 0–1 → sRGB-encoded 0–1. */
export function linearToSrgb(linear: number): number {
  return linear <= 0.0031308 ? linear * 12.92 : 1.055 * linear ** (1 / 2.4) - 0.055;
}

/** The 256 sRGB byte values as linear 16-bit normalised integers (16 bits keep the dark tones). */
const LINEAR_U16 = Uint16Array.from({ length: 256 }, (_, v) => Math.round(srgbToLinear(v / 255) * 65535));

/** 8-bit sRGB colours → linear unsigned-short normalised colours, as glTF COLOR_0 takes them. */
export function linearColours(srgb: Uint8Array): Uint16Array {
  const out = new Uint16Array(srgb.length);
  for (let i = 0; i < srgb.length; i++) out[i] = LINEAR_U16[srgb[i]];
  return out;
}
