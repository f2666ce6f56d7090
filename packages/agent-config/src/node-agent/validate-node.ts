// Validation of the node's identity and runtime: registration taints, unsafe sysctls, hairpin mode, endpoints, metrics and object change detection.
import { forbidden, invalid, isQualifiedName, isValidLabelValue, notSupported, required, type FieldError } from '@plat/apimachinery';
import { path, type ValidationContext } from './validate-helpers.js';

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const HAIRPIN_MODES = ['promiscuous-bridge', 'hairpin-veth', 'none'];
const CHANGE_DETECTION_STRATEGIES = ['Get', 'Cache', 'Watch'];
/** The minor version before the one this agent implements (1.28): the only one whose hidden metrics can be shown. */
const PREVIOUS_MINOR_VERSION = '1.27';

// A sysctl name is dot- or slash-separated segments; a pattern ends in `*`.
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_PATTERN = new RegExp(`^(${SYSCTL_SEGMENT}[./])*(${SYSCTL_SEGMENT}\\*?|\\*)$`);
const SYSCTL_MAX_LENGTH = 253;
/** The sysctls a pod's namespaces isolate: whole names, and name prefixes. */
const NAMESPACED_SYSCTLS = ['kernel.sem'];
const NAMESPACED_SYSCTL_PREFIXES = ['kernel.shm', 'kernel.msg', 'fs.mqueue.', 'net.'];

export function validateNode({ config: c }: ValidationContext): FieldError[] {
  const errors: FieldError[] = [];
  (c.registerWithTaints ?? []).forEach((taint, i) => {
    const at = path('registerWithTaints').index(i);
    const key = taint.key ?? '';
    if (!key) errors.push(required(at.child('key')));
    else for (const message of isQualifiedName(key)) errors.push(invalid(at.child('key'), key, message));
    if (taint.value) for (const message of isValidLabelValue(taint.value)) errors.push(invalid(at.child('value'), taint.value, message));
    if (taint.effect && !TAINT_EFFECTS.includes(taint.effect)) errors.push(notSupported(at.child('effect'), taint.effect, TAINT_EFFECTS));
    if (taint.timeAdded !== undefined) errors.push(forbidden(at.child('timeAdded'), 'must not be set for registration taints'));
  });

  (c.allowedUnsafeSysctls ?? []).forEach((sysctl, i) => {
    const at = path('allowedUnsafeSysctls').index(i);
    if (sysctl.length > SYSCTL_MAX_LENGTH || !SYSCTL_PATTERN.test(sysctl)) {
      errors.push(invalid(at, sysctl, `must have at most ${SYSCTL_MAX_LENGTH} characters and be a sysctl name or a pattern ending in "*"`));
      return;
    }
    // A pattern is judged by the part before its `*`.
    const name = sysctl.replaceAll('/', '.').replace(/\*$/, '');
    const namespaced = NAMESPACED_SYSCTLS.includes(name) || NAMESPACED_SYSCTL_PREFIXES.some((prefix) => name.startsWith(prefix));
    if (!namespaced) errors.push(invalid(at, sysctl, 'not known to be namespaced'));
  });

  const hairpin = c.hairpinMode ?? '';
  if (!HAIRPIN_MODES.includes(hairpin)) errors.push(notSupported(path('hairpinMode'), hairpin, HAIRPIN_MODES));
  const strategy = c.configMapAndSecretChangeDetectionStrategy ?? '';
  if (!CHANGE_DETECTION_STRATEGIES.includes(strategy)) {
    errors.push(notSupported(path('configMapAndSecretChangeDetectionStrategy'), strategy, CHANGE_DETECTION_STRATEGIES));
  }
  if (c.showHiddenMetricsForVersion && c.showHiddenMetricsForVersion !== PREVIOUS_MINOR_VERSION) {
    errors.push(invalid(path('showHiddenMetricsForVersion'), c.showHiddenMetricsForVersion, `must be omitted or have the value "${PREVIOUS_MINOR_VERSION}": only the previous minor version is allowed`));
  }
  if (!c.containerRuntimeEndpoint) errors.push(required(path('containerRuntimeEndpoint')));
  return errors;
}
