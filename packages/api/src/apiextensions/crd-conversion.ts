// How a CustomResourceDefinition's objects go between its versions: the converter its
// spec.conversion.strategy names (upstream's CRConverterFactory), behind upstream's checks that the
// versions converted from and to are the definition's own. None is the default (crd-defaults.ts)
// and the only strategy this server converts by: a definition asking for Webhook is refused when
// it is written (crd-conversion-validation.ts), so none is ever served.
import { goQuote } from '@plat/apimachinery';
import { noneConverter, versionCheckedConverter, type Converter } from '@plat/registry';
import type { CustomResourceDefinition } from './types.js';

export function customResourceConverter(crd: CustomResourceDefinition): Converter {
  const { group, versions, conversion } = crd.spec;
  const strategy = conversion?.strategy ?? 'None';
  const apiVersions = versions.map((version) => `${group}/${version.name}`);
  switch (strategy) {
    case 'None':
      return versionCheckedConverter(apiVersions, noneConverter);
    case 'Webhook':
      return refusing('webhook conversion is not supported by this server');
    default:
      return refusing(`unknown conversion strategy ${goQuote(strategy)} for CRD ${crd.metadata.name ?? ''}`);
  }
}

/** A converter that converts nothing: every call fails with `message`. */
function refusing(message: string): Converter {
  return { convert: () => Promise.reject(new Error(message)) };
}
