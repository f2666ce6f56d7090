// Objects for the codec's tests and benchmarks that are no kind's own (each kind's fixture is in its examples, @plat/api/testing), and the CustomResourceDefinition's Protobuf facts (@plat/protobuf/testing).
export * from './fixtures.js';
export * from './crd-source.js';
