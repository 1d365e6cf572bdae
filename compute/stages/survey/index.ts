/** @module Survey stage (work in progress). */
export { CogWriter, writeCog, type CogSpec, type CogSummary, type GeoReference } from "./cog.js";
