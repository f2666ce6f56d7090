// What a custom resource's schema does to its objects: the definition's structural schema, validation,
// defaulting, the status and scale paths and the printer columns.
export { structuralSchema } from './structural.js';
export { validateCustomResource, validateCustomResourceStatus, validateCustomResourceUpdate } from './validate.js';
export { applyDefaults, pruneNulls } from './defaulting.js';
export { readInt64, readPath, readString, simplePathFields, validateScaleSpec, validateScaleStatus, writePath, type PathValue } from './scale.js';
export { checkPrinterColumnPath, printerColumnValue } from './printer-column.js';
