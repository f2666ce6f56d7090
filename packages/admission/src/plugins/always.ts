// AlwaysAdmit and AlwaysDeny, upstream's plugins for testing: the one admits everything (it is
// deprecated upstream, and does nothing), the other refuses every write.
import { newForbidden } from '@plat/apimachinery';
import type { AdmissionPlugin } from '../plugin.js';

export const alwaysAdmit: AdmissionPlugin = { name: 'AlwaysAdmit' };

export const alwaysDeny: AdmissionPlugin = {
  name: 'AlwaysDeny',
  validate({ resource, name }) {
    throw newForbidden(resource.groupResource, name, new Error('admission control is denying all modifications'));
  },
};
