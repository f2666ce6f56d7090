import { runStorageConformance } from '../testing/conformance.js';
import { MemoryStorage } from './store.js';

runStorageConformance({ name: 'memory', newStore: async () => new MemoryStorage() });
