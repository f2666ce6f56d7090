// The field manager of a request without ?fieldManager: the User-Agent's product, as upstream.
import { managerFromUserAgent } from '@plat/merge';
import type { RequestContext } from '@plat/filters';

export const managerOf = (ctx: RequestContext): string => managerFromUserAgent(ctx.get('user-agent') || undefined);
