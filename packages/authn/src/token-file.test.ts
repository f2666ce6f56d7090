import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTokenFile, parseTokenFile, TokenFileError } from './token-file.js';
import type { UserInfo } from './user.js';

const ok: { name: string; text: string; want: Record<string, UserInfo>; warnings?: number }[] = [
  { name: 'three columns', text: 'tok1,alice,uid1\n', want: { tok1: { name: 'alice', uid: 'uid1', groups: [] } } },
  {
    name: 'quoted groups',
    text: 'tok1,alice,uid1,"system:masters,devs"\n',
    want: { tok1: { name: 'alice', uid: 'uid1', groups: ['system:masters', 'devs'] } },
  },
  { name: 'unquoted single group', text: 'tok1,alice,uid1,devs', want: { tok1: { name: 'alice', uid: 'uid1', groups: ['devs'] } } },
  { name: 'extra columns are ignored', text: 'tok1,alice,uid1,devs,whatever,else\n', want: { tok1: { name: 'alice', uid: 'uid1', groups: ['devs'] } } },
  {
    name: 'blank lines and CRLF',
    text: '\n\ntok1,alice,uid1\r\n\r\ntok2,bob,uid2,"a,b"\r\n',
    want: { tok1: { name: 'alice', uid: 'uid1', groups: [] }, tok2: { name: 'bob', uid: 'uid2', groups: ['a', 'b'] } },
  },
  { name: 'doubled quotes inside a quoted field', text: 'tok1,"al""ice",uid1\n', want: { tok1: { name: 'al"ice', uid: 'uid1', groups: [] } } },
  { name: 'quoted field with a newline', text: 'tok1,"a\nb",uid1\n', want: { tok1: { name: 'a\nb', uid: 'uid1', groups: [] } } },
  { name: 'empty groups column', text: 'tok1,alice,uid1,""\n', want: { tok1: { name: 'alice', uid: 'uid1', groups: [] } } },
  { name: 'empty token is skipped with a warning', text: ',alice,uid1\ntok2,bob,uid2\n', want: { tok2: { name: 'bob', uid: 'uid2', groups: [] } }, warnings: 1 },
  { name: 'duplicate token: the later line wins', text: 't,alice,1\nt,bob,2\n', want: { t: { name: 'bob', uid: '2', groups: [] } }, warnings: 1 },
  { name: 'empty file', text: '', want: {} },
];

for (const { name, text, want, warnings = 0 } of ok) {
  test(`token file: ${name}`, () => {
    const parsed = parseTokenFile(text, '/etc/tokens.csv');
    assert.deepEqual(Object.fromEntries(parsed.tokens), want);
    assert.equal(parsed.warnings.length, warnings);
  });
}

const bad: { name: string; text: string; message: string }[] = [
  { name: 'too few columns', text: 'tok1,alice,uid1\ntok2,bob\n', message: 'token file "/etc/tokens.csv", line 2: must have at least 3 columns (token, user name, user uid), found 2' },
  { name: 'bare quote', text: 'tok1,al"ice,uid1\n', message: 'token file "/etc/tokens.csv", line 1: bare " in non-quoted-field' },
  { name: 'text after a closing quote', text: '\ntok1,"alice"x,uid1\n', message: 'token file "/etc/tokens.csv", line 2: extraneous or missing " in quoted-field' },
  { name: 'unterminated quote', text: 'tok1,alice,"uid1\n', message: 'token file "/etc/tokens.csv", line 1: extraneous or missing " in quoted-field' },
  { name: 'a line of spaces is a record', text: 'tok1,alice,uid1\n   \n', message: 'token file "/etc/tokens.csv", line 2: must have at least 3 columns (token, user name, user uid), found 1' },
];

for (const { name, text, message } of bad) {
  test(`token file: ${name} is an error naming file and line`, () => {
    assert.throws(() => parseTokenFile(text, '/etc/tokens.csv'), (error: unknown) => {
      assert.ok(error instanceof TokenFileError);
      assert.equal(error.message, message);
      return true;
    });
  });
}

test('token file: loaded from disk; a missing file names the path', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-tokens-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'tokens.csv');
  await writeFile(path, 'secret,admin,1,"system:masters"\n');
  const { tokens } = await loadTokenFile(path);
  assert.deepEqual(tokens.get('secret'), { name: 'admin', uid: '1', groups: ['system:masters'] });
  await assert.rejects(loadTokenFile(join(dir, 'missing.csv')), (error: Error) => error instanceof TokenFileError && error.message.includes('missing.csv'));
});
