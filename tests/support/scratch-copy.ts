import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// A copy of the repository as a fresh clone of this commit would hold it: the files git tracks,
// and the new ones a commit would add (not yet added, not ignored), as they stand in the working
// tree. Nothing git ignores comes along: no node_modules, no build, no data, no env file. Tests
// that play what a newcomer or a host does with the repository (`shopify app build`, the
// Dockerfile's steps) run on such a copy, never on the working tree itself.

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** The repository's files, relative to its root: tracked, and new but not ignored. */
export function repositoryFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  // A tracked file deleted in the working tree is not in the next commit either.
  return [...new Set(listed.split("\0").filter(Boolean))].filter((file) => existsSync(path.join(ROOT, file)));
}

/** Copies `files` (relative to the repository's root) into `into`, folders made as needed. */
export function copyFiles(files: string[], into: string): void {
  for (const file of files) {
    const target = path.join(into, file);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(path.join(ROOT, file), target);
  }
}

/** A new temporary folder holding the repository's files (`keep` narrows them). */
export function scratchCopy(prefix: string, keep: (file: string) => boolean = () => true): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  copyFiles(repositoryFiles().filter(keep), folder);
  return folder;
}
