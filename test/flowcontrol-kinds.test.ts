// The flowcontrol kinds end to end (--api-domain=k8s.io, an apiserver in this process on memory):
// FlowSchema and PriorityLevelConfiguration created through v1beta3, read through v1beta2 with the
// shares renamed and upstream's deprecation Warning, listed as Tables with upstream's columns, an
// invalid object refused with upstream's message, the status written through its subresource only,
// and kubectl 1.28's `get flowschemas,prioritylevelconfigurations`. Nothing classifies requests
// yet: as upstream with --enable-priority-and-fairness=false, only the API is served.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startInProcessApiServer, type InProcessApiServer } from '@plat/apiserver/testing';
import { writeKubeconfig } from './support/kubeconfig.js';

const run = promisify(execFile);
const KUBECTL_128 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.28';
const KUBECTL = existsSync(KUBECTL_128) ? KUBECTL_128 : 'kubectl';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const V3 = `/apis/${GROUP}/v1beta3`;
const V2 = `/apis/${GROUP}/v1beta2`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

interface Table {
  kind: string;
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[] }[];
}

describe('flowcontrol.apiserver.k8s.io FlowSchema and PriorityLevelConfiguration (served, not enforced)', () => {
  let server: InProcessApiServer;
  let kubeconfig: Awaited<ReturnType<typeof writeKubeconfig>>;
  let workDir: string;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await server.send(method, path, body, { Authorization: `Bearer ${server.adminToken}`, ...headers });
    return { ...response, json: response.body ? (JSON.parse(response.body) as Record<string, any>) : {} };
  };

  before(async () => {
    server = await startInProcessApiServer({ domain: 'k8s.io' });
    kubeconfig = await writeKubeconfig(server, server.adminToken);
    workDir = await mkdtemp(join(tmpdir(), 'plat-e2e-flowcontrol-'));
  });
  after(async () => {
    await server?.stop();
    await kubeconfig?.cleanup();
    await rm(workDir, { recursive: true, force: true });
  });

  it('creates both kinds through v1beta3 with upstream\'s defaults, and reads them through v1beta2 with assuredConcurrencyShares and the deprecation warning', async () => {
    const level = await call('POST', `${V3}/prioritylevelconfigurations`, {
      apiVersion: `${GROUP}/v1beta3`,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'e2e-testing-prioritylevel' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: {} } } },
    });
    assert.equal(level.status, 201, level.body);
    assert.deepEqual(level.json.spec, {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } },
    });
    assert.equal(level.json.metadata.generation, 1);
    assert.equal(level.headers.warning, undefined, 'v1beta3 is not deprecated in 1.28');

    const schema = await call('POST', `${V3}/flowschemas`, {
      apiVersion: `${GROUP}/v1beta3`,
      kind: 'FlowSchema',
      metadata: { name: 'e2e-testing-flowschema' },
      spec: {
        priorityLevelConfiguration: { name: 'e2e-testing-prioritylevel' },
        distinguisherMethod: { type: 'ByUser' },
        rules: [{ subjects: [{ kind: 'User', user: { name: 'noxu' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
      },
    });
    assert.equal(schema.status, 201, schema.body);
    assert.equal(schema.json.spec.matchingPrecedence, 1000);

    const old = await call('GET', `${V2}/prioritylevelconfigurations/e2e-testing-prioritylevel`);
    assert.equal(old.status, 200, old.body);
    assert.equal(old.json.apiVersion, `${GROUP}/v1beta2`);
    assert.equal(old.json.spec.limited.assuredConcurrencyShares, 1);
    assert.equal(old.json.spec.limited.nominalConcurrencyShares, undefined);
    assert.equal(
      old.headers.warning,
      `299 - "${GROUP}/v1beta2 PriorityLevelConfiguration is deprecated in v1.26+, unavailable in v1.29+; use ${GROUP}/v1beta3 PriorityLevelConfiguration"`,
    );
    const oldSchema = await call('GET', `${V2}/flowschemas/e2e-testing-flowschema`);
    assert.equal(oldSchema.json.apiVersion, `${GROUP}/v1beta2`);
    assert.deepEqual(oldSchema.json.spec, schema.json.spec);
    assert.equal(oldSchema.headers.warning, `299 - "${GROUP}/v1beta2 FlowSchema is deprecated in v1.26+, unavailable in v1.29+; use ${GROUP}/v1beta3 FlowSchema"`);

    // Written through v1beta2 (its name for the shares), read through v1beta3: one stored object.
    const updated = await call('PUT', `${V2}/prioritylevelconfigurations/e2e-testing-prioritylevel`, {
      ...old.json,
      spec: { ...old.json.spec, limited: { ...old.json.spec.limited, assuredConcurrencyShares: 7 } },
    });
    assert.equal(updated.status, 200, updated.body);
    assert.equal(updated.json.spec.limited.assuredConcurrencyShares, 7);
    assert.equal(updated.json.metadata.generation, 2, 'a spec change is a new generation');
    const current = await call('GET', `${V3}/prioritylevelconfigurations/e2e-testing-prioritylevel`);
    assert.equal(current.json.spec.limited.nominalConcurrencyShares, 7);
    assert.equal(current.json.spec.limited.assuredConcurrencyShares, undefined);
  });

  it('lists both kinds as Tables with upstream\'s columns, in either version', async () => {
    const schemas = await call('GET', `${V3}/flowschemas`, undefined, { Accept: TABLE });
    assert.equal(schemas.status, 200, schemas.body);
    const fsTable = schemas.json as Table;
    assert.deepEqual(
      fsTable.columnDefinitions.map((c) => c.name),
      ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL'],
    );
    const row = fsTable.rows.find((r) => r.cells[0] === 'e2e-testing-flowschema');
    assert.deepEqual(row?.cells.filter((_, i) => i !== 4), ['e2e-testing-flowschema', 'e2e-testing-prioritylevel', 1000, 'ByUser', '?']);
    for (const path of [V3, V2]) {
      const levels = (await call('GET', `${path}/prioritylevelconfigurations`, undefined, { Accept: TABLE })).json as Table;
      assert.deepEqual(
        levels.columnDefinitions.map((c) => c.name),
        ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age'],
      );
      const cells = levels.rows.find((r) => r.cells[0] === 'e2e-testing-prioritylevel')?.cells;
      assert.deepEqual(cells?.slice(0, 6), ['e2e-testing-prioritylevel', 'Limited', 7, 64, 8, 50], path);
    }
  });

  it('refuses an invalid object with upstream\'s message, through either version', async () => {
    const bad = await call('POST', `${V3}/prioritylevelconfigurations`, {
      apiVersion: `${GROUP}/v1beta3`,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'too-wide' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 10 } } } },
    });
    assert.equal(bad.status, 422, bad.body);
    assert.equal(
      bad.json.message,
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "too-wide" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 128 and handSize 10 should not be greater than 60',
    );
    const negative = await call('POST', `${V2}/prioritylevelconfigurations`, {
      apiVersion: `${GROUP}/v1beta2`,
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'negative' },
      spec: { type: 'Limited', limited: { assuredConcurrencyShares: -1, limitResponse: { type: 'Reject' } } },
    });
    assert.equal(negative.status, 422, negative.body);
    assert.equal(negative.json.details.causes[0].field, 'spec.limited.assuredConcurrencyShares');
    assert.match(negative.json.message, /spec\.limited\.assuredConcurrencyShares: Invalid value: -1: must be positive/);
    const precedence = await call('POST', `${V3}/flowschemas`, {
      apiVersion: `${GROUP}/v1beta3`,
      kind: 'FlowSchema',
      metadata: { name: 'first' },
      spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1, rules: [] },
    });
    assert.equal(precedence.status, 422);
    assert.equal(precedence.json.message, `FlowSchema.flowcontrol.apiserver.k8s.io "first" is invalid: spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1`);
    const none = await call('GET', `${V3}/prioritylevelconfigurations/too-wide`);
    assert.equal(none.status, 404, 'nothing was stored');
  });

  it('writes the status only through the status subresource, which keeps the spec and the generation', async () => {
    const before = await call('GET', `${V3}/flowschemas/e2e-testing-flowschema`);
    const condition = { type: 'Dangling', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Found', message: 'it exists' };
    // An update of the object leaves the status alone.
    const ignored = await call('PUT', `${V3}/flowschemas/e2e-testing-flowschema`, { ...before.json, status: { conditions: [condition] } });
    assert.equal(ignored.status, 200, ignored.body);
    assert.equal(ignored.json.status?.conditions, undefined);
    assert.equal(ignored.json.metadata.generation, 1, 'no spec change, no new generation');
    const written = await call('PUT', `${V3}/flowschemas/e2e-testing-flowschema/status`, {
      ...ignored.json,
      spec: { ...ignored.json.spec, matchingPrecedence: 42 },
      status: { conditions: [condition] },
    });
    assert.equal(written.status, 200, written.body);
    assert.deepEqual(written.json.status.conditions, [condition]);
    assert.equal(written.json.spec.matchingPrecedence, 1000, 'the status subresource does not write the spec');
    assert.equal(written.json.metadata.generation, 1);
    const duplicate = await call('PUT', `${V3}/flowschemas/e2e-testing-flowschema/status`, { ...written.json, status: { conditions: [condition, condition] } });
    assert.equal(duplicate.status, 422);
    assert.match(duplicate.json.message, /status\.conditions\[1\]\.type: Duplicate value: "Dangling"/);
    // The MissingPL column shows the Dangling condition's status.
    const table = (await call('GET', `${V2}/flowschemas/e2e-testing-flowschema`, undefined, { Accept: TABLE })).json as Table;
    assert.equal(table.rows[0]?.cells[5], 'False');
  });

  it('kubectl get flowschemas,prioritylevelconfigurations', async () => {
    const { stdout } = await run(KUBECTL, [`--kubeconfig=${kubeconfig.path}`, 'get', 'flowschemas,prioritylevelconfigurations'], {
      env: { ...process.env, HOME: workDir, KUBECACHEDIR: join(workDir, 'cache') },
    });
    const lines = stdout.trim().split('\n').map((line) => line.trim().split(/\s+/));
    assert.deepEqual(lines[0], ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL'], stdout);
    assert.deepEqual(lines[1]?.filter((_, i) => i !== 4), ['flowschema.flowcontrol.apiserver.k8s.io/e2e-testing-flowschema', 'e2e-testing-prioritylevel', '1000', 'ByUser', 'False'], stdout);
    const levelHeader = lines.findIndex((line) => line[1] === 'TYPE');
    assert.deepEqual(lines[levelHeader], ['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE'], stdout);
    assert.deepEqual(lines[levelHeader + 1]?.slice(0, 6), ['prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/e2e-testing-prioritylevel', 'Limited', '7', '64', '8', '50'], stdout);
  });
});
