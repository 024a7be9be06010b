/**
 * examples/kubernetes/: the manifests parse, fit together (Service ↔
 * Deployment ↔ ConfigMap ↔ client), and say what docs/kubernetes.md says: a
 * headless Service, a dns:/// target naming it, a service config that
 * validates and selects peak_ewma_experimental, servers with a maximum
 * connection age. (client.ts and server.ts run in examples.test.ts.)
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { register, validateServiceConfig } from '../../src';
import { optionsFromEnv } from '../../examples/kubernetes/server';

register();

const DIR = path.join(__dirname, '..', '..', 'examples', 'kubernetes');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function load(file: string): K8sObject[] {
  const documents = parseAllDocuments(fs.readFileSync(path.join(DIR, file), 'utf8'));
  return documents.map((document) => {
    if (document.errors.length > 0) {
      throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
    }
    return document.toJS() as K8sObject;
  });
}

const files = fs.readdirSync(DIR).filter((file) => file.endsWith('.yaml'));
const objects = files.filter((file) => file !== 'kustomization.yaml').flatMap(load);
const find = (kind: string, name: string): K8sObject => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in examples/kubernetes`);
  return found;
};

describe('examples/kubernetes', () => {
  it('every manifest parses to objects with apiVersion, kind and name, all in one namespace', () => {
    expect(objects.length).toBeGreaterThanOrEqual(6);
    for (const object of objects) {
      expect(object.apiVersion).toMatch(/^(v1|apps\/v1)$/);
      expect(object.metadata.name).toMatch(/^[a-z0-9-]+$/);
      if (object.kind !== 'Namespace') {
        expect(object.metadata.namespace).toBe('shop');
      }
    }
    find('Namespace', 'shop');
  });

  it('kustomization.yaml lists every manifest except the optional xDS bootstrap', () => {
    const [kustomization] = load('kustomization.yaml');
    expect(kustomization.kind).toBe('Kustomization');
    const listed: string[] = kustomization.resources;
    expect(new Set(listed)).toEqual(new Set(files.filter((file) => !['kustomization.yaml', 'xds-bootstrap.yaml'].includes(file))));
  });

  it('the Service is headless and selects the server pods on their named gRPC port', () => {
    const service = find('Service', 'orders');
    const deployment = find('Deployment', 'orders');
    expect(service.spec.clusterIP).toBe('None');
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    const [servicePort] = service.spec.ports;
    const containerPort = deployment.spec.template.spec.containers[0].ports.find(
      (port: { name: string }) => port.name === servicePort.targetPort,
    );
    expect(containerPort.containerPort).toBe(servicePort.port);
  });

  it("the client's target is dns:///<service>.<namespace>.svc.cluster.local:<port>", () => {
    const service = find('Service', 'orders');
    const config = find('ConfigMap', 'orders-client-config');
    expect(config.data.target).toBe(
      `dns:///${service.metadata.name}.${service.metadata.namespace}.svc.cluster.local:${service.spec.ports[0].port}`,
    );
  });

  it('the service config validates and selects peak_ewma_experimental (under outlier_detection)', () => {
    const text: string = find('ConfigMap', 'orders-client-config').data['service-config.json'];
    expect(validateServiceConfig(text)).toBe(1); // one peak_ewma_experimental entry checked, and grpc-js parsed the rest
    const [top] = JSON.parse(text).loadBalancingConfig;
    expect(Object.keys(top)).toEqual(['outlier_detection']);
    expect(top.outlier_detection.child_policy).toEqual([{ peak_ewma_experimental: { decayTime: '2s' } }]);
  });

  it('the client Deployment gets the target and the service config file from that ConfigMap', () => {
    const config = find('ConfigMap', 'orders-client-config');
    const spec = find('Deployment', 'orders-client').spec.template.spec;
    const env = Object.fromEntries(spec.containers[0].env.map((entry: { name: string }) => [entry.name, entry]));
    expect(env.GRPC_TARGET.valueFrom.configMapKeyRef).toEqual({ name: config.metadata.name, key: 'target' });
    const mount = spec.containers[0].volumeMounts[0];
    const volume = spec.volumes.find((v: { name: string }) => v.name === mount.name);
    expect(volume.configMap.name).toBe(config.metadata.name);
    const item = volume.configMap.items[0];
    expect(Object.keys(config.data)).toContain(item.key);
    expect(env.SERVICE_CONFIG_FILE.value).toBe(path.posix.join(mount.mountPath, item.path));
  });

  it('the servers get a maximum connection age, read by server.ts into grpc.max_connection_age_ms', () => {
    const container = find('Deployment', 'orders').spec.template.spec.containers[0];
    const env = Object.fromEntries(container.env.map((entry: { name: string; value: string }) => [entry.name, entry.value]));
    const options = optionsFromEnv(env);
    expect(options.maxConnectionAgeMs).toBe(30_000);
    expect(options.maxConnectionAgeGraceMs).toBe(10_000);
    expect(options.port).toBe(container.ports[0].containerPort);
  });

  it('the optional xDS bootstrap is a gRPC bootstrap (server_uri, insecure creds, xds_v3, node id)', () => {
    const bootstrap = JSON.parse(find('ConfigMap', 'orders-client-xds-bootstrap').data['bootstrap.json']);
    expect(bootstrap.xds_servers[0]).toMatchObject({
      server_uri: expect.stringMatching(/^[a-z0-9.-]+:\d+$/),
      channel_creds: [{ type: 'insecure' }],
      server_features: ['xds_v3'],
    });
    expect(bootstrap.node.id).toBe('orders-client');
  });
});
