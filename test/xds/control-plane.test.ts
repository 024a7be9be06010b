/**
 * The fake control plane's protocol, driven by a raw ADS client (grpc-js,
 * no XdsClient), so each request and response is under the test's control.
 */
import { ClientDuplexStream, credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import * as fs from 'fs';
import * as path from 'path';
import { adsServiceDefinition, DiscoveryRequest, DiscoveryResponse } from '../../scripts/xds/ads-service';
import { FakeControlPlane } from '../../scripts/xds/control-plane';
import { clusterLoadAssignment, FIXTURES_DIR, loadResourceFile } from '../../scripts/xds/fixtures';
import { TYPE_URLS } from '../../scripts/xds/resource-types';

type AdsCall = ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

/** A raw ADS stream that queues the responses it receives. */
class RawAdsClient {
  private readonly queue: DiscoveryResponse[] = [];
  private waiting: ((response: DiscoveryResponse) => void) | null = null;
  private readonly client: InstanceType<ReturnType<typeof makeGenericClientConstructor>>;
  readonly call: AdsCall;

  constructor(plane: FakeControlPlane) {
    const Client = makeGenericClientConstructor(adsServiceDefinition(plane.root), 'ADS');
    this.client = new Client(plane.address, credentials.createInsecure());
    this.call = (this.client as unknown as { StreamAggregatedResources(): AdsCall }).StreamAggregatedResources();
    this.call.on('data', (response: DiscoveryResponse) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = null;
        resolve(response);
      } else {
        this.queue.push(response);
      }
    });
    this.call.on('error', () => undefined);
  }

  send(request: Partial<DiscoveryRequest> & { type_url: string }): void {
    this.call.write({ version_info: '', resource_names: [], response_nonce: '', node: { id: 'raw' }, ...request });
  }

  /** The next response (bounded wait). */
  next(timeoutMs = 5_000): Promise<DiscoveryResponse> {
    const queued = this.queue.shift();
    if (queued) {
      return Promise.resolve(queued);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no response')), timeoutMs);
      this.waiting = (response) => {
        clearTimeout(timer);
        resolve(response);
      };
    });
  }

  get pending(): number {
    return this.queue.length;
  }

  close(): void {
    this.call.end();
    this.client.close();
  }
}

const cluster = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'EDS', ...extra });

let plane: FakeControlPlane;
let ads: RawAdsClient;

beforeEach(async () => {
  plane = await FakeControlPlane.start();
  ads = new RawAdsClient(plane);
});

afterEach(() => {
  ads.close();
  plane.close();
});

test('serves a subscription with version and nonce, and records the ACK a test can await', async () => {
  const version = plane.setClusters([cluster('c1'), cluster('c2')]);
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'] });
  const response = await ads.next();
  expect(response).toMatchObject({ version_info: version, type_url: TYPE_URLS.cluster });
  expect(response.resources).toHaveLength(1);
  expect(response.resources[0].type_url).toBe(TYPE_URLS.cluster);

  const acked = plane.expectAck('cluster', version);
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'], version_info: version, response_nonce: response.nonce });
  expect(await acked).toMatchObject({ kind: 'cluster', version, status: 'ACK', errorMessage: null, resourceNames: ['c1'] });
});

test('records a NACK with its message and never resends the NACKed version', async () => {
  const v1 = plane.setClusters([cluster('c1')]);
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'] });
  const first = await ads.next();
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'], version_info: v1, response_nonce: first.nonce });
  await plane.expectAck('cluster', v1);

  const v2 = plane.setClusters([cluster('c1', { connect_timeout: '2s' })]);
  const second = await ads.next();
  expect(second.version_info).toBe(v2);
  // The NACK carries the last accepted version, as clients send it.
  ads.send({
    type_url: TYPE_URLS.cluster,
    resource_names: ['c1'],
    version_info: v1,
    response_nonce: second.nonce,
    error_detail: { code: 3, message: 'bad cluster c1' },
  });
  expect(await plane.expectNack('cluster', v2)).toBe('bad cluster c1');
  expect(plane.nacks('cluster')).toEqual([expect.objectContaining({ version: v2, errorMessage: 'bad cluster c1' })]);

  // The next response is the next version the test pushes, not v2 again.
  const v3 = plane.setClusters([cluster('c1')]);
  expect((await ads.next()).version_info).toBe(v3);
  expect(ads.pending).toBe(0);
});

test('expectAck fails with the NACK message; expectNack fails on an ACK', async () => {
  const version = plane.setClusters([cluster('c1')]);
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'] });
  const response = await ads.next();
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'], response_nonce: response.nonce, error_detail: { message: 'no' } });
  await expect(plane.expectAck('cluster', version)).rejects.toThrow(`cluster version ${version} was NACKed: no`);

  const next = plane.setClusters([cluster('c1')]);
  const nextResponse = await ads.next();
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'], version_info: next, response_nonce: nextResponse.nonce });
  await expect(plane.expectNack('cluster', next)).rejects.toThrow('was ACKed, expected a NACK');
});

test('a request carrying a stale nonce is ignored', async () => {
  plane.setClusters([cluster('c1')]);
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1'] });
  const first = await ads.next();
  const v2 = plane.setClusters([cluster('c1'), cluster('c2')]);
  const second = await ads.next();
  // Answering the first response after the second was sent: neither recorded nor answered.
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1', 'c2'], response_nonce: first.nonce, error_detail: { message: 'late' } });
  ads.send({ type_url: TYPE_URLS.cluster, resource_names: ['c1', 'c2'], version_info: v2, response_nonce: second.nonce });
  const record = await plane.expectAck('cluster', v2);
  expect(plane.responses).toEqual([record]);
});

test('EDS: only subscribed names are sent; a subscription change is answered at the same version', async () => {
  const version = plane.setEndpoints([
    clusterLoadAssignment('e1', [{ region: 'r', addresses: ['127.0.0.1:1'] }]),
    clusterLoadAssignment('e2', [{ region: 'r', addresses: ['127.0.0.1:2'] }]),
  ]);
  ads.send({ type_url: TYPE_URLS.endpoint, resource_names: ['e1'] });
  const first = await ads.next();
  expect(first.resources).toHaveLength(1);
  ads.send({ type_url: TYPE_URLS.endpoint, resource_names: ['e1', 'e2'], version_info: version, response_nonce: first.nonce });
  const second = await ads.next();
  expect(second.version_info).toBe(version);
  expect(second.resources).toHaveLength(2);
});

test('waitForResponse times out with a description of what was recorded', async () => {
  await expect(plane.waitForResponse('listener', '7', 50)).rejects.toThrow('no ACK/NACK of listener version 7 within 50 ms; responses so far: none');
});

test('resources are checked when set: a "@type" outside the proto root, a missing name', () => {
  expect(() =>
    plane.setClusters([
      cluster('c1', {
        load_balancing_policy: { policies: [{ typed_extension_config: { name: 'p', typed_config: { '@type': 'type.googleapis.com/x.Unknown' } } }] },
      }),
    ]),
  ).toThrow('cluster[0].load_balancing_policy.policies[0].typed_extension_config.typed_config: "@type" "type.googleapis.com/x.Unknown" does not resolve');
  expect(() => plane.setClusters([{ type: 'EDS' }])).toThrow('cluster[0]: a Cluster needs a non-empty name');
  expect(plane.version('cluster')).toBe('0');
});

test('every fixture file in xds-fixtures/ encodes: each "@type" resolves and every field exists', () => {
  const files: string[] = [];
  // What tests expect of the fixtures, not resources.
  const EXPECTATION_FILES = ['expected-errors.yaml', 'interop.yaml'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else if (entry.name.endsWith('.yaml') && !EXPECTATION_FILES.includes(entry.name)) {
        files.push(full);
      }
    }
  };
  walk(FIXTURES_DIR);
  expect(files.length).toBeGreaterThanOrEqual(20);
  for (const file of files) {
    expect(loadResourceFile(file).length).toBeGreaterThan(0);
    expect(() => plane.putFromFile(file)).not.toThrow();
  }
});
