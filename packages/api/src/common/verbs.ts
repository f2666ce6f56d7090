// The verbs a resource served by the generic store answers to.
import type { Verb } from '@plat/registry';

export const allVerbs = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const satisfies readonly Verb[];
