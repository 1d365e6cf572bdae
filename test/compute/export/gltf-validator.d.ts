/** Types for the parts of gltf-validator (Khronos, no bundled types) the export tests use. */
declare module "gltf-validator" {
  export interface ValidationReport {
    issues: { numErrors: number; numWarnings: number; messages: Array<{ code: string; message: string; severity: number; pointer?: string }> };
  }
  export function validateBytes(data: Uint8Array, options?: { uri?: string; maxIssues?: number; externalResourceFunction?: (uri: string) => Promise<Uint8Array> }): Promise<ValidationReport>;
}
