// The in-process test harness (@plat/apiserver/testing), for this package's tests and every other
// test that serves the API in its own process: a certificate, a captured log, fake storage, the
// server itself (bare, with the built-in API, or as a replica is), requests, and a webhook to call.
// Not part of the image (deploy/Dockerfile leaves dist/testing out).
export { testCert } from './certificate.js';
export { captureLogger, type LogLine } from './logs.js';
export { fakeStorage } from './fake-storage.js';
export { requestTo, type RequestOptions, type Response } from './requests.js';
export {
  startApiServer,
  startInProcessApiServer,
  startServer,
  type ApiTestServer,
  type InProcessApiServer,
  type InProcessOptions,
  type TestServer,
} from './servers.js';
export { startTestWebhook, type TestWebhook } from './webhook.js';
