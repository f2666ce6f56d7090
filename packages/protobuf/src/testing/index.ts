// Objects of every kind with a Protobuf form, for tests and benchmarks (@plat/protobuf/testing).
export * from './fixtures.js';
export * from './crd-source.js';
