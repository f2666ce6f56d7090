// Service validation, table-driven from upstream 1.28's TestValidateServiceCreate and
// TestValidateServiceUpdate (pkg/apis/core/validation/validation_test.go: makeValidService, then
// one change per case), with upstream's messages; defaults (SetDefaults_Service); the strategy's
// clusterIP normalization and kept allocations; kubectl's cells.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serviceDefinition, defaultService, normalizeClusterIPs, type Service } from './service.js';
import { validateService, validateServiceUpdate, validateServiceStatus } from './service-validation.js';

/** upstream's makeValidService. */
function valid(): Service {
  return {
    metadata: { name: 'valid', namespace: 'valid', labels: {}, annotations: {}, resourceVersion: '1' },
    spec: { selector: { key: 'val' }, sessionAffinity: 'None', type: 'ClusterIP', ports: [{ name: 'p', protocol: 'TCP', port: 8675, targetPort: 8675 }], internalTrafficPolicy: 'Cluster' },
  };
}

const messages = (service: Service): string[] => validateService(service).map(String);

const createCases: { name: string; tweak: (s: Service) => void; errors: string[] }[] = [
  { name: 'valid', tweak: () => {}, errors: [] },
  { name: 'missing ports', tweak: (s) => void (s.spec!.ports = []), errors: ['spec.ports: Required value'] },
  { name: 'valid headless without ports', tweak: (s) => Object.assign(s.spec!, { ports: [], clusterIP: 'None', clusterIPs: ['None'] }), errors: [] },
  {
    name: 'empty port[1] name',
    tweak: (s) => s.spec!.ports!.push({ protocol: 'TCP', port: 12345, targetPort: 12345 }),
    errors: ['spec.ports[1].name: Required value'],
  },
  {
    name: 'invalid port name',
    tweak: (s) => (s.spec!.ports![0]!.name = 'INVALID'),
    errors: ["spec.ports[0].name: Invalid value: \"INVALID\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
  },
  { name: 'missing protocol', tweak: (s) => (s.spec!.ports![0]!.protocol = ''), errors: ['spec.ports[0].protocol: Required value'] },
  {
    name: 'invalid protocol',
    tweak: (s) => (s.spec!.ports![0]!.protocol = 'INVALID'),
    errors: ['spec.ports[0].protocol: Unsupported value: "INVALID": supported values: "SCTP", "TCP", "UDP"'],
  },
  {
    name: 'invalid cluster ip',
    tweak: (s) => Object.assign(s.spec!, { clusterIP: 'invalid', clusterIPs: ['invalid'] }),
    errors: ['spec.clusterIPs[0]: Invalid value: "invalid": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
  },
  { name: 'missing port', tweak: (s) => (s.spec!.ports![0]!.port = 0), errors: ['spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'] },
  { name: 'invalid port', tweak: (s) => (s.spec!.ports![0]!.port = 65536), errors: ['spec.ports[0].port: Invalid value: 65536: must be between 1 and 65535, inclusive'] },
  {
    name: 'invalid target port number',
    tweak: (s) => (s.spec!.ports![0]!.targetPort = 65536),
    errors: ['spec.ports[0].targetPort: Invalid value: 65536: must be between 1 and 65535, inclusive'],
  },
  { name: 'valid target port name', tweak: (s) => (s.spec!.ports![0]!.targetPort = 'http'), errors: [] },
  {
    name: 'invalid target port name',
    tweak: (s) => (s.spec!.ports![0]!.targetPort = 'bad--name-'),
    errors: [
      'spec.ports[0].targetPort: Invalid value: "bad--name-": must not contain consecutive hyphens',
      'spec.ports[0].targetPort: Invalid value: "bad--name-": must not begin or end with a hyphen',
    ],
  },
  {
    name: 'invalid publicIPs localhost',
    tweak: (s) => Object.assign(s.spec!, { externalTrafficPolicy: 'Cluster', externalIPs: ['127.0.0.1'] }),
    errors: ['spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  },
  {
    name: 'invalid publicIPs unspecified',
    tweak: (s) => Object.assign(s.spec!, { externalTrafficPolicy: 'Cluster', externalIPs: ['0.0.0.0'] }),
    errors: ['spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)'],
  },
  {
    name: 'dup port name',
    tweak: (s) => s.spec!.ports!.push({ name: 'p', protocol: 'TCP', port: 12345, targetPort: 12345 }),
    errors: ['spec.ports[1].name: Duplicate value: "p"'],
  },
  {
    name: 'dup ports',
    tweak: (s) => s.spec!.ports!.push({ name: 'q', protocol: 'TCP', port: 8675, targetPort: 1 }),
    errors: ['spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:8675, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'],
  },
  { name: 'same port, different protocols', tweak: (s) => s.spec!.ports!.push({ name: 'q', protocol: 'UDP', port: 8675, targetPort: 8675 }), errors: [] },
  {
    name: 'dup nodeports',
    tweak: (s) => {
      Object.assign(s.spec!, { type: 'NodePort', externalTrafficPolicy: 'Cluster' });
      s.spec!.ports = [
        { name: 'a', protocol: 'TCP', port: 1, nodePort: 1, targetPort: 1 },
        { name: 'b', protocol: 'TCP', port: 2, nodePort: 1, targetPort: 2 },
      ];
    },
    errors: ['spec.ports[1].nodePort: Duplicate value: 1'],
  },
  {
    name: 'nodePort on a ClusterIP Service',
    tweak: (s) => (s.spec!.ports![0]!.nodePort = 30080),
    errors: ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
  },
  {
    name: 'LoadBalancer type cannot have None ClusterIP',
    tweak: (s) => Object.assign(s.spec!, { type: 'LoadBalancer', clusterIP: 'None', clusterIPs: ['None'], externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true }),
    errors: ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for LoadBalancer services"],
  },
  {
    name: 'NodePort type cannot have None ClusterIP',
    tweak: (s) => Object.assign(s.spec!, { type: 'NodePort', clusterIP: 'None', clusterIPs: ['None'], externalTrafficPolicy: 'Cluster' }),
    errors: ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"],
  },
  {
    name: 'LoadBalancer may not expose the kubelet port',
    tweak: (s) => {
      Object.assign(s.spec!, { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true });
      s.spec!.ports![0]!.port = 10250;
    },
    errors: ['spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet'],
  },
  {
    name: 'LoadBalancer without allocateLoadBalancerNodePorts (upstream path has no spec.)',
    tweak: (s) => Object.assign(s.spec!, { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster' }),
    errors: ['allocateLoadBalancerNodePorts: Required value'],
  },
  {
    name: 'allocateLoadBalancerNodePorts on a ClusterIP Service',
    tweak: (s) => (s.spec!.allocateLoadBalancerNodePorts = true),
    errors: ["spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'"],
  },
  {
    name: 'invalid type',
    tweak: (s) => (s.spec!.type = 'Bogus'),
    errors: ['spec.type: Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
  },
  { name: 'missing type', tweak: (s) => (s.spec!.type = ''), errors: ['spec.type: Required value'] },
  { name: 'missing sessionAffinity', tweak: (s) => (s.spec!.sessionAffinity = ''), errors: ['spec.sessionAffinity: Required value'] },
  {
    name: 'invalid sessionAffinity',
    tweak: (s) => (s.spec!.sessionAffinity = 'Bogus'),
    errors: ['spec.sessionAffinity: Unsupported value: "Bogus": supported values: "ClientIP", "None"'],
  },
  {
    name: 'sessionAffinityConfig can\'t be set when session affinity is None',
    tweak: (s) => (s.spec!.sessionAffinityConfig = { clientIP: { timeoutSeconds: 90 } }),
    errors: ['spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None'],
  },
  {
    name: 'ClientIP without timeout',
    tweak: (s) => Object.assign(s.spec!, { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: {} } }),
    errors: ['spec.sessionAffinityConfig.clientIP.timeoutSeconds: Required value: when session affinity type is ClientIP'],
  },
  {
    name: 'ClientIP timeout over a day',
    tweak: (s) => Object.assign(s.spec!, { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } } }),
    errors: ['spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400'],
  },
  {
    name: 'valid ExternalName with trailing dot',
    tweak: (s) => Object.assign(s.spec!, { type: 'ExternalName', externalName: 'foo.bar.example.com.', internalTrafficPolicy: undefined }),
    errors: [],
  },
  {
    name: 'invalid ExternalName',
    tweak: (s) => Object.assign(s.spec!, { type: 'ExternalName', externalName: '-123.bar', internalTrafficPolicy: undefined }),
    errors: ["spec.externalName: Invalid value: \"-123.bar\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
  },
  { name: 'missing ExternalName', tweak: (s) => Object.assign(s.spec!, { type: 'ExternalName', internalTrafficPolicy: undefined }), errors: ['spec.externalName: Required value'] },
  {
    name: 'ExternalName with clusterIPs and families',
    tweak: (s) => Object.assign(s.spec!, { type: 'ExternalName', externalName: 'a.b', clusterIP: '1.2.3.4', clusterIPs: ['1.2.3.4'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' }),
    errors: [
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
      'spec.ipFamilies: Forbidden: may not be set for ExternalName services',
      'spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services',
    ],
  },
  {
    name: 'externalTrafficPolicy on a ClusterIP Service',
    tweak: (s) => (s.spec!.externalTrafficPolicy = 'Local'),
    errors: ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services'],
  },
  {
    name: 'invalid externalTrafficPolicy',
    tweak: (s) => Object.assign(s.spec!, { type: 'NodePort', externalTrafficPolicy: 'Bogus' }),
    errors: ['spec.externalTrafficPolicy: Unsupported value: "Bogus": supported values: "Cluster", "Local"'],
  },
  { name: 'nil internalTrafficPolicy', tweak: (s) => delete s.spec!.internalTrafficPolicy, errors: ['spec.internalTrafficPolicy: Required value'] },
  {
    name: 'invalid internalTrafficPolicy',
    tweak: (s) => (s.spec!.internalTrafficPolicy = 'invalid'),
    errors: ['spec.internalTrafficPolicy: Unsupported value: "invalid": supported values: "Cluster", "Local"'],
  },
  {
    name: 'healthCheckNodePort without Local LoadBalancer',
    tweak: (s) => (s.spec!.healthCheckNodePort = 31000),
    errors: ["spec.healthCheckNodePort: Invalid value: 31000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"],
  },
  {
    name: 'loadBalancerSourceRanges on a ClusterIP Service',
    tweak: (s) => (s.spec!.loadBalancerSourceRanges = ['10.0.0.0/8']),
    errors: ["spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"],
  },
  {
    name: 'invalid loadBalancerSourceRanges',
    tweak: (s) => Object.assign(s.spec!, { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true, loadBalancerSourceRanges: ['10.0.0.0/8', 'bogus'] }),
    errors: ['spec.LoadBalancerSourceRanges: Invalid value: "[10.0.0.0/8 bogus]": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '],
  },
  {
    name: 'loadBalancerClass on a ClusterIP Service',
    tweak: (s) => (s.spec!.loadBalancerClass = 'example.com/lb'),
    errors: ["spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'"],
  },
  {
    name: 'clusterIPs without clusterIP',
    tweak: (s) => (s.spec!.clusterIPs = ['10.0.0.1']),
    errors: ['spec.clusterIPs: Invalid value: []string{"10.0.0.1"}: must be empty when `clusterIP` is not specified'],
  },
  {
    name: 'clusterIPs not matching clusterIP',
    tweak: (s) => Object.assign(s.spec!, { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.2'] }),
    errors: ['spec.clusterIPs: Invalid value: []string{"10.0.0.2"}: first value must match `clusterIP`'],
  },
  {
    name: 'two IPs of one family',
    tweak: (s) => Object.assign(s.spec!, { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', '10.0.0.2'], ipFamilyPolicy: 'PreferDualStack' }),
    errors: ['spec.clusterIPs: Invalid value: []string{"10.0.0.1", "10.0.0.2"}: may specify no more than one IP for each IP family'],
  },
  {
    name: "'None' with another IP",
    tweak: (s) => Object.assign(s.spec!, { clusterIP: 'None', clusterIPs: ['None', '10.0.0.1'] }),
    errors: ['spec.clusterIPs: Invalid value: []string{"None", "10.0.0.1"}: \'None\' must be the first and only value'],
  },
  {
    name: 'family not matching the IP',
    tweak: (s) => Object.assign(s.spec!, { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ipFamilies: ['IPv6'] }),
    errors: ['spec.clusterIPs[0]: Invalid value: "10.0.0.1": expected an IPv6 value as indicated by `ipFamilies[0]`'],
  },
  {
    name: 'invalid and duplicate families, invalid policy',
    tweak: (s) => Object.assign(s.spec!, { ipFamilies: ['IPv4', 'IPv4', 'IPv5'], ipFamilyPolicy: 'Bogus' }),
    errors: [
      'spec.ipFamilies[1]: Duplicate value: "IPv4"',
      'spec.ipFamilies[2]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
      'spec.ipFamilyPolicy: Unsupported value: "Bogus": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    ],
  },
  {
    name: 'invalid selector',
    tweak: (s) => (s.spec!.selector = { 'NoUppercaseOrSpecialCharsLike=Equals': 'bar' }),
    errors: [
      "spec.selector: Invalid value: \"NoUppercaseOrSpecialCharsLike=Equals\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  },
  {
    name: 'topology-mode disagreeing with topology-aware-hints',
    tweak: (s) => (s.metadata.annotations = { 'service.kubernetes.io/topology-aware-hints': 'Auto', 'service.kubernetes.io/topology-mode': 'Disabled' }),
    errors: ['metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Disabled": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified'],
  },
];

describe('ValidateService (upstream TestValidateServiceCreate)', () => {
  for (const { name, tweak, errors } of createCases) {
    it(name, () => {
      const service = valid();
      tweak(service);
      assert.deepEqual(messages(service).sort(), [...errors].sort());
    });
  }
});

describe('ValidateServiceUpdate (upstream TestValidateServiceUpdate)', () => {
  const withIPs = (ips: string[], families: string[], policy = 'SingleStack'): Service => {
    const s = valid();
    Object.assign(s.spec!, { clusterIP: ips[0], clusterIPs: ips, ipFamilies: families, ipFamilyPolicy: policy });
    return s;
  };
  const cases: { name: string; old: () => Service; update: (s: Service) => void; errors: string[] }[] = [
    { name: 'no change', old: () => withIPs(['1.2.3.4'], ['IPv4']), update: () => {}, errors: [] },
    {
      name: 'change clusterIP',
      old: () => withIPs(['1.2.3.4'], ['IPv4']),
      update: (s) => Object.assign(s.spec!, { clusterIP: '8.6.7.5', clusterIPs: ['8.6.7.5'] }),
      errors: ['spec.clusterIPs[0]: Invalid value: []string{"8.6.7.5"}: may not change once set'],
    },
    {
      name: 'upgrade to dual stack',
      old: () => withIPs(['1.2.3.4'], ['IPv4']),
      update: (s) => Object.assign(s.spec!, { clusterIPs: ['1.2.3.4', '2001::1'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' }),
      errors: [],
    },
    {
      name: 'downgrade without SingleStack',
      old: () => withIPs(['1.2.3.4', '2001::1'], ['IPv4', 'IPv6'], 'RequireDualStack'),
      update: (s) => Object.assign(s.spec!, { clusterIPs: ['1.2.3.4'], ipFamilies: ['IPv4'] }),
      errors: [
        'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be set to \'SingleStack\' when releasing the secondary clusterIP',
        'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be set to \'SingleStack\' when releasing the secondary ipFamily',
      ],
    },
    {
      name: 'downgrade with SingleStack',
      old: () => withIPs(['1.2.3.4', '2001::1'], ['IPv4', 'IPv6'], 'RequireDualStack'),
      update: (s) => Object.assign(s.spec!, { clusterIPs: ['1.2.3.4'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' }),
      errors: [],
    },
    {
      name: 'change primary family',
      old: () => withIPs(['1.2.3.4'], ['IPv4']),
      update: (s) => Object.assign(s.spec!, { ipFamilies: ['IPv6'] }),
      errors: [
        'spec.ipFamilies[0]: Invalid value: []core.IPFamily{"IPv6"}: may not change once set',
        'spec.clusterIPs[0]: Invalid value: "1.2.3.4": expected an IPv6 value as indicated by `ipFamilies[0]`',
      ],
    },
    {
      name: 'ClusterIP to ExternalName may drop its IPs',
      old: () => withIPs(['1.2.3.4'], ['IPv4']),
      update: (s) => {
        s.spec = { ...s.spec, type: 'ExternalName', externalName: 'a.example.com' };
        delete s.spec.clusterIP;
        delete s.spec.clusterIPs;
        delete s.spec.ipFamilies;
        delete s.spec.ipFamilyPolicy;
        delete s.spec.internalTrafficPolicy;
      },
      errors: [],
    },
    {
      name: 'loadBalancerClass may not change',
      old: () => {
        const s = withIPs(['1.2.3.4'], ['IPv4']);
        Object.assign(s.spec!, { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true, loadBalancerClass: 'test.com/a' });
        return s;
      },
      update: (s) => (s.spec!.loadBalancerClass = 'test.com/b'),
      errors: ['spec.loadBalancerClass: Invalid value: "test.com/b": may not change once set'],
    },
  ];
  for (const { name, old, update, errors } of cases) {
    it(name, () => {
      const before = old();
      const after = structuredClone(before);
      update(after);
      assert.deepEqual(validateServiceUpdate(after, before).map(String).sort(), [...errors].sort());
    });
  }
});

describe('the Service strategy', () => {
  it('defaults as SetDefaults_Service: ClusterIP, None, TCP, targetPort = port, Cluster policies, allocateLoadBalancerNodePorts', () => {
    const s: Service = { metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } };
    defaultService(s);
    assert.deepEqual(s.spec, { sessionAffinity: 'None', type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], internalTrafficPolicy: 'Cluster' });
    const lb: Service = { metadata: { name: 'b' }, spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'http' }] } };
    defaultService(lb);
    assert.equal(lb.spec!.externalTrafficPolicy, 'Cluster');
    assert.equal(lb.spec!.allocateLoadBalancerNodePorts, true);
    assert.deepEqual(lb.spec!.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    assert.equal(lb.spec!.ports![0]!.targetPort, 'http');
  });

  it('normalizes clusterIP and clusterIPs as upstream (an old client setting only clusterIP; an update that leaves clusterIPs out)', () => {
    const s: Service = { metadata: { name: 'a' }, spec: { clusterIP: '10.0.0.1' } };
    normalizeClusterIPs(s, undefined);
    assert.deepEqual(s.spec!.clusterIPs, ['10.0.0.1']);
    const old: Service = { metadata: { name: 'a' }, spec: { clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', 'fd00::1'] } };
    const patched: Service = { metadata: { name: 'a' }, spec: { clusterIP: '10.0.0.1' } };
    normalizeClusterIPs(patched, old);
    assert.deepEqual(patched.spec!.clusterIPs, ['10.0.0.1', 'fd00::1']);
  });

  it('an update without clusterIP or nodePort keeps what was allocated (kubectl apply of a manifest)', () => {
    const definition = serviceDefinition();
    const old: Service = { metadata: { name: 'a' }, spec: { type: 'NodePort', clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] } };
    const update: Service = { metadata: { name: 'a' }, spec: { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP' }] } };
    definition.strategy.prepareForUpdate!(update, old, { domain: 'k8s.io' });
    assert.equal(update.spec!.clusterIP, '10.0.0.1');
    assert.deepEqual(update.spec!.clusterIPs, ['10.0.0.1']);
    assert.equal(update.spec!.ports![0]!.nodePort, 30080);
  });

  it('NodePort to ClusterIP drops the node ports it did not change (dropTypeDependentFields)', () => {
    const definition = serviceDefinition();
    const old: Service = { metadata: { name: 'a' }, spec: { type: 'NodePort', externalTrafficPolicy: 'Cluster', clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] } };
    const update = structuredClone(old);
    update.spec!.type = 'ClusterIP';
    definition.strategy.prepareForUpdate!(update, old, { domain: 'k8s.io' });
    assert.equal(update.spec!.ports![0]!.nodePort, undefined);
    assert.equal(update.spec!.externalTrafficPolicy, undefined);
  });

  it('names are DNS-1035 labels (upstream ValidateServiceName)', () => {
    const definition = serviceDefinition();
    assert.deepEqual(definition.validateName!('my-svc', false, valid()), []);
    assert.ok(definition.validateName!('1abc', false, valid()).length > 0);
    assert.deepEqual(definition.validateName!('gen-', true, valid()), []);
  });

  it('status: the load balancer ingress is checked as upstream ValidateLoadBalancerStatus', () => {
    const s = valid();
    s.status = { loadBalancer: { ingress: [{ ip: 'bogus' }, { hostname: '1.2.3.4' }] } };
    assert.deepEqual(validateServiceStatus(s).map(String), [
      'status.loadBalancer.ingress[0].ip: Invalid value: "bogus": must be a valid IP address',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    ]);
  });
});

describe("kubectl's cells", () => {
  const cells = (s: Service): unknown[] => serviceDefinition().tableColumns!.map((c) => c.value(s, { domain: 'k8s.io' }));
  it('ClusterIP, NodePort, LoadBalancer pending, ExternalName, headless', () => {
    const base = (spec: Service['spec']): Service => ({ metadata: { name: 'x', creationTimestamp: new Date().toISOString() }, spec });
    assert.deepEqual(cells(base({ type: 'ClusterIP', clusterIPs: ['10.0.0.1'], ports: [{ port: 80, protocol: 'TCP' }] })).slice(1, 5), ['ClusterIP', '10.0.0.1', '<none>', '80/TCP']);
    assert.deepEqual(cells(base({ type: 'NodePort', clusterIPs: ['10.0.0.1'], ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }, { port: 53, protocol: 'UDP', nodePort: 30053 }] })).slice(1, 5), [
      'NodePort',
      '10.0.0.1',
      '<none>',
      '80:30080/TCP,53:30053/UDP',
    ]);
    assert.deepEqual(cells(base({ type: 'LoadBalancer', clusterIPs: ['10.0.0.1'], ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] })).slice(3, 4), ['<pending>']);
    const balanced = base({ type: 'LoadBalancer', clusterIPs: ['10.0.0.1'], externalIPs: ['192.0.2.9'], ports: [{ port: 80, protocol: 'TCP', nodePort: 30080 }] });
    balanced.status = { loadBalancer: { ingress: [{ ip: '192.0.2.2' }, { hostname: 'lb.example.com' }, { ip: '192.0.2.2' }] } };
    assert.deepEqual(cells(balanced).slice(3, 4), ['192.0.2.2,lb.example.com,192.0.2.9']);
    assert.deepEqual(cells(base({ type: 'ExternalName', externalName: 'example.com' })).slice(1, 5), ['ExternalName', '<none>', 'example.com', '<none>']);
    assert.deepEqual(cells(base({ type: 'ClusterIP', clusterIPs: ['None'], selector: { b: '2', a: '1' } })).slice(2, 3), ['None']);
    assert.equal(cells(base({ type: 'ClusterIP', selector: { b: '2', a: '1' } }))[6], 'a=1,b=2');
  });
});
