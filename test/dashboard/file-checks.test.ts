/** The upload page's per-file checks (dashboard/file-checks.ts), on real File objects in Node. */
import { describe, expect, it } from "vitest";
import { checkFiles, sniff } from "../../dashboard/file-checks.js";

const bytes = (...values: number[]) => new Uint8Array(values);
const ftyp = (brand: string) => new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode(`ftyp${brand}`), 0, 0, 0, 0]);
const limits = { maxImage: 1000, maxVideo: 5000, maxRequest: 6000, maxFiles: 3 };
function file(name: string, head: Uint8Array, size: number): File {
  const data = new Uint8Array(Math.max(size, head.length));
  data.set(head);
  return new File([data], name);
}

describe("sniff", () => {
  it("judges by the bytes", () => {
    expect(sniff(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("jpeg");
    expect(sniff(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a))).toBe("png");
    expect(sniff(ftyp("heic"))).toBe("heic");
    expect(sniff(ftyp("qt  "))).toBe("mov");
    expect(sniff(ftyp("isom"))).toBe("mp4");
    expect(sniff(new TextEncoder().encode("%PDF-1.4 hello"))).toBeNull();
  });
});

describe("checkFiles", () => {
  it("passes files of an accepted kind within their limits", async () => {
    const checked = await checkFiles([file("a.jpg", bytes(0xff, 0xd8, 0xff), 900), file("v.mp4", ftyp("isom"), 4000)], limits);
    expect(checked.map((c) => [c.kind, c.problem])).toEqual([["jpeg", null], ["mp4", null]]);
  });

  it("names the problem: wrong kind (whatever the name says), empty, over the per-kind limit", async () => {
    const checked = await checkFiles([file("photo.jpg", new TextEncoder().encode("%PDF-1.4"), 100), new File([], "empty.png"), file("big.png", bytes(0x89, 0x50, 0x4e, 0x47), 1001)], limits);
    expect(checked[0].problem).toMatch(/not a JPEG/);
    expect(checked[1].problem).toBe("the file is empty");
    expect(checked[2].problem).toMatch(/limit for images/);
  });

  it("refuses a selection over the per-request size or count", async () => {
    const jpeg = (n: string) => file(n, bytes(0xff, 0xd8, 0xff), 900);
    expect((await checkFiles([jpeg("1"), jpeg("2"), jpeg("3"), jpeg("4")], limits)).every((c) => /more than 3 files/.test(c.problem ?? ""))).toBe(true);
    const videos = [file("a.mov", ftyp("qt  "), 4000), file("b.mov", ftyp("qt  "), 4000)];
    expect((await checkFiles(videos, limits)).every((c) => /exceed/.test(c.problem ?? ""))).toBe(true);
  });
});
