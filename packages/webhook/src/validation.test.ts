import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPath } from '@plat/apimachinery';
import type { ServiceReference } from './client-config.js';
import { validateWebhookService, validateWebhookURL } from './validation.js';

const form = '; desired format: https://host[/path]';
const url = newPath('clientConfig', 'url');

const urls: { name: string; url: string; want: string[] }[] = [
  { name: 'https with a host and a path', url: 'https://hook.example.com:8443/admit', want: [] },
  { name: 'an IPv6 host', url: 'https://[::1]:8443/', want: [] },
  { name: 'plain http', url: 'http://hook.example.com/', want: [`clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${form}`] },
  {
    name: 'blank (upstream: both the scheme and the host)',
    url: '',
    want: [`clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme${form}`, `clientConfig.url: Invalid value: "": host must be specified${form}`],
  },
  { name: 'no host', url: 'https:///admit', want: [`clientConfig.url: Invalid value: "": host must be specified${form}`] },
  { name: 'a host without a scheme is a path to Go', url: 'hook.example.com/admit', want: [`clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme${form}`, `clientConfig.url: Invalid value: "": host must be specified${form}`] },
  { name: 'user information', url: 'https://me:secret@hook.example.com/', want: ['clientConfig.url: Invalid value: "me:secret": user information is not permitted in the URL'] },
  { name: 'a fragment', url: 'https://hook.example.com/#top', want: ['clientConfig.url: Invalid value: "top": fragments are not permitted in the URL'] },
  { name: 'a query', url: 'https://hook.example.com/?x=1', want: ['clientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL'] },
  { name: 'what Go cannot parse', url: ':foo', want: [`clientConfig.url: Required value: url must be a valid URL: parse ":foo": missing protocol scheme${form}`] },
  { name: 'a bad escape', url: 'https://hook.example.com/%zz', want: [`clientConfig.url: Required value: url must be a valid URL: parse "https://hook.example.com/%zz": invalid URL escape "%zz"${form}`] },
];

for (const { name, url: value, want } of urls) {
  test(`webhook URL: ${name}`, () => {
    assert.deepEqual(validateWebhookURL(url, value).map(String), want);
  });
}

const svc = newPath('clientConfig', 'service');
const ok: ServiceReference = { namespace: 'ns', name: 'hook', port: 443 };

const services: { name: string; service: ServiceReference; want: string[] }[] = [
  { name: 'name, namespace and port, no path', service: ok, want: [] },
  { name: 'a path of subdomain segments, a trailing slash allowed', service: { ...ok, path: '/admit/v1.pods/' }, want: [] },
  { name: 'the root path, or an empty one', service: { ...ok, path: '/' }, want: [] },
  { name: 'an empty path', service: { ...ok, path: '' }, want: [] },
  {
    name: 'no name or namespace',
    service: { namespace: '', name: '', port: 443 },
    want: ['clientConfig.service.name: Required value: service name is required', 'clientConfig.service.namespace: Required value: service namespace is required'],
  },
  { name: 'port 0', service: { ...ok, port: 0 }, want: ['clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive'] },
  { name: 'port 65536', service: { ...ok, port: 65536 }, want: ['clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive'] },
  { name: 'a double slash', service: { ...ok, path: '//' }, want: ['clientConfig.service.path: Invalid value: "//": segment[0] may not be empty'] },
  {
    name: 'a relative path',
    service: { ...ok, path: 'admit' },
    // Upstream then checks what follows the first character as segments.
    want: ['clientConfig.service.path: Invalid value: "admit": must start with a \'/\''],
  },
  { name: 'an empty segment', service: { ...ok, path: '/admit//pods' }, want: ['clientConfig.service.path: Invalid value: "/admit//pods": segment[1] may not be empty'] },
  {
    name: 'a segment that is no DNS subdomain',
    service: { ...ok, path: '/Admit' },
    want: [
      'clientConfig.service.path: Invalid value: "/Admit": segment[0]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ],
  },
];

for (const { name, service, want } of services) {
  test(`webhook service: ${name}`, () => {
    assert.deepEqual(validateWebhookService(svc, service).map(String), want);
  });
}
