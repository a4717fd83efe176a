/** Locating and reading agent.yaml in a project directory. Read errors become issues. */
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { MAX_CONFIG_BYTES, tooLargeIssue } from './limits.js';
import { parseConfig } from './parse.js';
import { defaultConfig } from './tree.js';
import type { ConfigResult } from './types.js';

/** Candidate files, in order of preference. config.yaml only counts if it has a top-level `memory:` key. */
export const CONFIG_FILE_CANDIDATES: readonly string[] = Object.freeze([
  join('.agent-memory', 'agent.yaml'),
  'agent.yaml',
  'AGENT.yaml',
  'config.yaml',
]);

const TOP_LEVEL_MEMORY = /^\uFEFF?(["']?)memory\1[ \t]*:(?:[ \t\r]|$)/m;

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The file's text, but never more than `max` bytes of it (a file may grow while it is read), and
 * its size on disk: an oversized file is refused without reading it into memory.
 */
async function readBounded(path: string, max: number): Promise<{ text: string; size: number }> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.alloc(Math.min(size, max) + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return { text: buf.subarray(0, Math.min(bytesRead, max)).toString('utf8'), size: Math.max(size, bytesRead) };
  } finally {
    await fh.close();
  }
}

async function hasTopLevelMemoryKey(path: string): Promise<boolean> {
  try {
    // Another tool's config.yaml may be large: its head is enough to tell whether it is ours.
    return TOP_LEVEL_MEMORY.test((await readBounded(path, MAX_CONFIG_BYTES)).text);
  } catch {
    return false;
  }
}

/** The configuration file to use for the project in `dir`, or undefined if there is none. */
export async function findConfigFile(dir: string): Promise<string | undefined> {
  for (const name of CONFIG_FILE_CANDIDATES) {
    const path = join(dir, name);
    if (!(await isFile(path))) continue;
    if (name === 'config.yaml' && !(await hasTopLevelMemoryKey(path))) continue;
    return path;
  }
  return undefined;
}

/** When the configuration file of `dir` (findConfigFile) was last written, ms since the epoch; undefined without one. */
export async function configChangedAt(dir: string): Promise<number | undefined> {
  const path = await findConfigFile(dir);
  if (path === undefined) return undefined;
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined; // removed meanwhile
  }
}

export interface LoadedConfig extends ConfigResult {
  /** The file that was read, if any. */
  path?: string;
}

/** Reads and parses one configuration file. Never throws: a read error is an issue and defaults are used. */
export async function loadConfigFile(path: string): Promise<LoadedConfig> {
  let text: string;
  try {
    const read = await readBounded(path, MAX_CONFIG_BYTES);
    if (read.size > MAX_CONFIG_BYTES) return { path, config: defaultConfig(), issues: [tooLargeIssue(read.size, path)] };
    text = read.text;
  } catch (err) {
    return {
      path,
      config: defaultConfig(),
      issues: [{ severity: 'error', key: '', message: `cannot read ${path}: ${errorMessage(err)}; defaults are used`, source: path }],
    };
  }
  return { path, ...parseConfig(text, path) };
}

/** findConfigFile + loadConfigFile; all defaults and no issues when the project has no file. */
export async function loadProjectConfig(dir: string): Promise<LoadedConfig> {
  const path = await findConfigFile(dir);
  return path === undefined ? { config: defaultConfig(), issues: [] } : loadConfigFile(path);
}
