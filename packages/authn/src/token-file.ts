// The static token file (--token-auth-file): CSV lines `token,user,uid,"group1,group2"`.
import { readFile } from 'node:fs/promises';
import type { UserInfo } from './user.js';

export interface TokenFile {
  tokens: Map<string, UserInfo>;
  /** Problems that upstream tolerates (empty or duplicate tokens), for the caller to log. */
  warnings: string[];
}

export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * Splits CSV text into records as Go's encoding/csv does (which upstream reads the file with):
 * quoted fields may hold commas, doubled quotes and newlines; a quote inside an unquoted field is an
 * error; empty lines are skipped.
 */
function parseCsv(text: string, fail: (line: number, problem: string) => never): CsvRecord[] {
  const records: CsvRecord[] = [];
  const src = text.replace(/\r\n/g, '\n');
  let line = 1;
  let i = 0;
  while (i < src.length) {
    if (src[i] === '\n') {
      line++;
      i++;
      continue;
    }
    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      let field = '';
      if (src[i] === '"') {
        i++;
        for (;;) {
          if (i >= src.length) fail(record.line, 'extraneous or missing " in quoted-field');
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          field += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n') fail(line, 'extraneous or missing " in quoted-field');
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n') {
          if (src[i] === '"') fail(line, 'bare " in non-quoted-field');
          field += src[i];
          i++;
        }
      }
      record.fields.push(field);
      if (src[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    records.push(record);
  }
  return records;
}

/** Parses the text of a token file; `path` only names the file in messages. */
export function parseTokenFile(text: string, path: string): TokenFile {
  const fail = (line: number, problem: string): never => {
    throw new TokenFileError(`token file ${JSON.stringify(path)}, line ${line}: ${problem}`);
  };
  const tokens = new Map<string, UserInfo>();
  const warnings: string[] = [];
  for (const { line, fields } of parseCsv(text, fail)) {
    if (fields.length < 3) fail(line, `must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    const [token, name, uid, groups] = fields as [string, string, string, string?];
    if (!token) {
      warnings.push(`token file ${JSON.stringify(path)}, line ${line}: empty token, line ignored`);
      continue;
    }
    if (tokens.has(token)) warnings.push(`token file ${JSON.stringify(path)}, line ${line}: duplicate token, the later line wins`);
    // Extra columns after the groups are ignored, as upstream does.
    tokens.set(token, { name, uid, groups: groups ? groups.split(',').filter(Boolean) : [] });
  }
  return { tokens, warnings };
}

export async function loadTokenFile(path: string): Promise<TokenFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TokenFileError(`token file ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
  return parseTokenFile(text, path);
}
