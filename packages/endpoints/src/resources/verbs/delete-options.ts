// DeleteOptions, from the query and the optional body (upstream merges both; the body wins).
import { invalid, newBadRequest, newInvalid, newPath, notSupported } from '@plat/apimachinery';
import type { DeleteRequest } from '@plat/registry';
import type { RequestContext } from '@plat/filters';
import { readBody } from '../body.js';
import { PROPAGATION_POLICIES, dryRunErrors, exactNumber, isDryRun, operationOptions, type Query } from '../query.js';
import { auditAnnotationSink, warningSink } from '../respond.js';

interface DeleteOptionsBody {
  dryRun?: string[];
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export async function deleteRequest(ctx: RequestContext, query: Query, domain: string): Promise<DeleteRequest> {
  const text = (await readBody(ctx)).toString('utf8').trim();
  let body: DeleteOptionsBody = {};
  if (text) {
    try {
      body = JSON.parse(text) as DeleteOptionsBody;
    } catch (error) {
      throw newBadRequest(`the DeleteOptions body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw newBadRequest('the DeleteOptions body is not a JSON object');
  }
  const fromQuery = query.int64('gracePeriodSeconds');
  const gracePeriodSeconds = body.gracePeriodSeconds ?? (fromQuery === undefined ? undefined : exactNumber(fromQuery));
  const policy = body.propagationPolicy ?? (query.string('propagationPolicy') || undefined);
  const orphan = body.orphanDependents ?? query.boolean('orphanDependents');
  const dryRunValues = body.dryRun ?? query.all('dryRun');
  // Checked together, as upstream's ValidateDeleteOptions.
  const errors = [
    ...(policy !== undefined && orphan !== undefined
      ? [invalid(newPath('propagationPolicy'), policy, 'orphanDependents and deletionPropagation cannot be both set')]
      : []),
    ...(policy !== undefined && !(PROPAGATION_POLICIES as readonly string[]).includes(policy)
      ? [notSupported(newPath('propagationPolicy'), policy, [...PROPAGATION_POLICIES, 'nil'])]
      : []),
    ...dryRunErrors(dryRunValues),
  ];
  if (errors.length) throw newInvalid({ group: `meta.${domain}`, kind: 'DeleteOptions' }, '', errors);
  const dryRun = isDryRun(dryRunValues);
  // The deprecated orphanDependents: true orphans, false deletes dependents in the background.
  // Orphan and Foreground are carried out by the controller-manager's garbage collector.
  const propagationPolicy = (policy ?? (orphan === undefined ? undefined : orphan ? 'Orphan' : 'Background')) as DeleteRequest['propagationPolicy'];
  const preconditions = body.preconditions;
  return {
    dryRun,
    user: ctx.state.user,
    warn: warningSink(ctx),
    annotate: auditAnnotationSink(ctx),
    operationOptions: operationOptions('DeleteOptions', domain, {
      dryRun: dryRunValues,
      gracePeriodSeconds,
      preconditions: body.preconditions,
      propagationPolicy: policy,
      orphanDependents: orphan,
    }),
    ...(propagationPolicy && { propagationPolicy }),
    ...(preconditions && (preconditions.uid || preconditions.resourceVersion) && {
      preconditions: {
        ...(preconditions.uid && { uid: preconditions.uid }),
        ...(preconditions.resourceVersion && { resourceVersion: preconditions.resourceVersion }),
      },
    }),
  };
}
