/**
 * A fake xDS control plane: ADS, state of the world, on 127.0.0.1. Tests and
 * scripts (e.g. a load test) set listeners, routes, clusters and endpoints
 * from plain objects in Envoy's JSON form or from fixture files, and await the
 * client's ACK or NACK of the version they pushed.
 *
 *   const controlPlane = await FakeControlPlane.start();
 *   const client = createProbeClient('xds:///listener1', credentials.createInsecure(), controlPlane.channelOptions());
 *   const version = controlPlane.setClusters([cluster]);
 *   await controlPlane.expectAck('cluster', version);
 *
 * Per resource type it keeps a version (+1 per change) and, per stream, the
 * nonce of each response. Every ACK and NACK is recorded with its
 * error_detail. It never resends in reply to a NACK: the NACKed version stays
 * NACKed until the test pushes another one (grpc-js-xds's own test harness
 * resends and loops).
 */
import { ChannelOptions, Server, ServerCredentials, ServerDuplexStream } from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { adsServiceDefinition, DiscoveryRequest, DiscoveryResponse } from './ads-service';
import { loadResourceFile } from './fixtures';
import { ProtoJson } from './proto-json';
import { controlPlaneRoot, kindOfTypeUrl, NAME_FIELDS, RESOURCE_KINDS, ResourceKind, TYPE_URLS } from './resource-types';

/** grpc-js-xds reads a per-channel bootstrap from this channel option (one XdsClient per channel). */
export const BOOTSTRAP_CHANNEL_OPTION = 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config';

export interface ResponseRecord {
  readonly kind: ResourceKind;
  readonly version: string;
  readonly nonce: string;
  readonly status: 'ACK' | 'NACK';
  /** error_detail.message of a NACK. */
  readonly errorMessage: string | null;
  readonly streamId: number;
  /** Resource names sent in the response being answered. */
  readonly resourceNames: readonly string[];
  /** node.id of the client, from the first request on its stream that carried one. */
  readonly nodeId: string | null;
}

interface StoredResource {
  readonly name: string;
  readonly any: { type_url: string; value: Buffer };
}

interface TypeState {
  version: number;
  readonly resources: Map<string, StoredResource>;
}

interface SentResponse {
  readonly kind: ResourceKind;
  readonly version: string;
  readonly resourceNames: readonly string[];
  answered: boolean;
}

interface AdsStream {
  readonly id: number;
  nodeId: string | null;
  readonly call: ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>;
  readonly subscriptions: Map<ResourceKind, Set<string>>;
  /** The latest nonce sent per type: requests carrying an older one are stale and ignored. */
  readonly latestNonce: Map<ResourceKind, string>;
  /** The version sent most recently per type, to send each version once per stream. */
  readonly sentVersion: Map<ResourceKind, number>;
  readonly responses: Map<string, SentResponse>;
}

interface Waiter {
  readonly matches: (record: ResponseRecord) => boolean;
  readonly resolve: (record: ResponseRecord) => void;
}

export interface StartOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Extra .proto files (relative to the include dirs) whose messages fixtures may use in Anys. */
  extraProtos?: readonly string[];
}

export class FakeControlPlane {
  private readonly state = new Map<ResourceKind, TypeState>(
    RESOURCE_KINDS.map((kind) => [kind, { version: 0, resources: new Map() }]),
  );
  private readonly streams = new Set<AdsStream>();
  private readonly records: ResponseRecord[] = [];
  private waiters: Waiter[] = [];
  private nextNonce = 1;
  private nextStreamId = 1;
  readonly json: ProtoJson;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    readonly root: protobuf.Root,
  ) {
    this.json = new ProtoJson(root);
  }

  static async start(options: StartOptions = {}): Promise<FakeControlPlane> {
    const root = controlPlaneRoot();
    for (const file of options.extraProtos ?? []) {
      root.loadSync(file, { keepCase: true });
    }
    root.resolveAll();
    const server = new Server();
    let plane: FakeControlPlane | null = null;
    server.addService(adsServiceDefinition(root), {
      StreamAggregatedResources: (call: ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>) => plane!.onStream(call),
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${options.port ?? 0}`, ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    plane = new FakeControlPlane(server, port, root);
    return plane;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** A gRPC xDS bootstrap pointing at this control plane. */
  bootstrap(nodeId = 'grpc-js-peak-ewma-test'): object {
    return {
      xds_servers: [{ server_uri: this.address, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
      node: { id: nodeId, locality: {} },
    };
  }

  /** Channel options giving a client its own XdsClient bootstrapped to this control plane. */
  channelOptions(bootstrap: object = this.bootstrap()): ChannelOptions {
    return { [BOOTSTRAP_CHANNEL_OPTION]: JSON.stringify(bootstrap) };
  }

  // --- resources ---

  /** Replaces every resource of `kind` (state of the world); returns the new version. */
  setResources(kind: ResourceKind, resources: readonly object[]): string {
    const encoded = resources.map((resource, index) => this.encode(kind, resource, `${kind}[${index}]`));
    const state = this.state.get(kind)!;
    state.resources.clear();
    for (const resource of encoded) {
      state.resources.set(resource.name, resource);
    }
    return this.publish(kind);
  }

  /** Adds or replaces resources of `kind` by name, keeping the others; returns the new version. */
  putResources(kind: ResourceKind, resources: readonly object[]): string {
    const encoded = resources.map((resource, index) => this.encode(kind, resource, `${kind}[${index}]`));
    const state = this.state.get(kind)!;
    for (const resource of encoded) {
      state.resources.set(resource.name, resource);
    }
    return this.publish(kind);
  }

  removeResource(kind: ResourceKind, name: string): string {
    this.state.get(kind)!.resources.delete(name);
    return this.publish(kind);
  }

  setListeners(resources: readonly object[]): string {
    return this.setResources('listener', resources);
  }

  setRoutes(resources: readonly object[]): string {
    return this.setResources('route', resources);
  }

  setClusters(resources: readonly object[]): string {
    return this.setResources('cluster', resources);
  }

  setEndpoints(resources: readonly object[]): string {
    return this.setResources('endpoint', resources);
  }

  /**
   * Puts the resources of a fixture file (YAML or JSON: one resource, a list,
   * or a DiscoveryResponse-shaped {resources: [...]}), each kind from its
   * "@type"; returns the new version per kind.
   */
  putFromFile(file: string): Partial<Record<ResourceKind, string>> {
    const byKind = new Map<ResourceKind, object[]>();
    for (const [index, resource] of loadResourceFile(file).entries()) {
      const typeUrl = (resource as { '@type'?: unknown })['@type'];
      const kind = typeof typeUrl === 'string' ? kindOfTypeUrl(typeUrl) : null;
      if (kind === null) {
        throw new Error(`${file}: resource ${index} has "@type" ${JSON.stringify(typeUrl)}, not one of ${Object.values(TYPE_URLS).join(', ')}`);
      }
      byKind.set(kind, [...(byKind.get(kind) ?? []), resource]);
    }
    const versions: Partial<Record<ResourceKind, string>> = {};
    for (const [kind, resources] of byKind) {
      versions[kind] = this.putResources(kind, resources);
    }
    return versions;
  }

  /** The current version of `kind` ("0" before anything was set). */
  version(kind: ResourceKind): string {
    return String(this.state.get(kind)!.version);
  }

  // --- ACK / NACK ---

  /** Every ACK and NACK so far, oldest first. */
  get responses(): readonly ResponseRecord[] {
    return this.records;
  }

  nacks(kind?: ResourceKind): ResponseRecord[] {
    return this.records.filter((record) => record.status === 'NACK' && (kind === undefined || record.kind === kind));
  }

  /** The first ACK or NACK of `version` of `kind`, from any client or only from the one with node.id `nodeId`. */
  waitForResponse(kind: ResourceKind, version: string, timeoutMs = 10_000, nodeId?: string): Promise<ResponseRecord> {
    const matches = (record: ResponseRecord) =>
      record.kind === kind && record.version === version && (nodeId === undefined || record.nodeId === nodeId);
    const found = this.records.find(matches);
    if (found) {
      return Promise.resolve(found);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== entry);
        reject(new Error(`no ACK/NACK of ${kind} version ${version}${nodeId ? ` from ${nodeId}` : ''} within ${timeoutMs} ms; responses so far: ${this.describeResponses()}`));
      }, timeoutMs);
      const entry: Waiter = {
        matches,
        resolve: (record) => {
          clearTimeout(timer);
          resolve(record);
        },
      };
      this.waiters.push(entry);
    });
  }

  async expectAck(kind: ResourceKind, version: string, timeoutMs?: number, nodeId?: string): Promise<ResponseRecord> {
    const record = await this.waitForResponse(kind, version, timeoutMs, nodeId);
    if (record.status !== 'ACK') {
      throw new Error(`${kind} version ${version} was NACKed${nodeId ? ` by ${nodeId}` : ''}: ${record.errorMessage}`);
    }
    return record;
  }

  /** Resolves to the NACK's error message. */
  async expectNack(kind: ResourceKind, version: string, timeoutMs?: number, nodeId?: string): Promise<string> {
    const record = await this.waitForResponse(kind, version, timeoutMs, nodeId);
    if (record.status !== 'NACK') {
      throw new Error(`${kind} version ${version} was ACKed${nodeId ? ` by ${nodeId}` : ''}, expected a NACK`);
    }
    return record.errorMessage ?? '';
  }

  /** Stops at once, ending every ADS stream. */
  close(): void {
    for (const stream of this.streams) {
      stream.call.end();
    }
    this.streams.clear();
    this.server.forceShutdown();
  }

  // --- internals ---

  private encode(kind: ResourceKind, resource: object, path: string): StoredResource {
    const type = this.root.lookupType(TYPE_URLS[kind].substring(TYPE_URLS[kind].lastIndexOf('/') + 1));
    const value = this.json.encodeMessage(type, resource, path);
    const name = (type.toObject(type.decode(value)) as Record<string, unknown>)[NAME_FIELDS[kind]];
    if (typeof name !== 'string' || name === '') {
      throw new Error(`${path}: a ${type.name} needs a non-empty ${NAME_FIELDS[kind]}`);
    }
    return { name, any: { type_url: TYPE_URLS[kind], value } };
  }

  private publish(kind: ResourceKind): string {
    const state = this.state.get(kind)!;
    state.version++;
    for (const stream of this.streams) {
      if (stream.subscriptions.has(kind)) {
        this.send(stream, kind);
      }
    }
    return String(state.version);
  }

  private onStream(call: ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>): void {
    const stream: AdsStream = {
      id: this.nextStreamId++,
      nodeId: null,
      call,
      subscriptions: new Map(),
      latestNonce: new Map(),
      sentVersion: new Map(),
      responses: new Map(),
    };
    this.streams.add(stream);
    call.on('data', (request: DiscoveryRequest) => this.onRequest(stream, request));
    const forget = () => this.streams.delete(stream);
    call.on('end', () => {
      forget();
      call.end();
    });
    call.on('error', forget);
    call.on('cancelled', forget);
  }

  private onRequest(stream: AdsStream, request: DiscoveryRequest): void {
    // xDS clients send node only on a stream's first request (C-core) or on every one (grpc-js).
    stream.nodeId ??= request.node?.id || null;
    const kind = kindOfTypeUrl(request.type_url);
    if (kind === null) {
      return; // a type we don't serve: no response, as for an unknown resource
    }
    const nonce = request.response_nonce;
    const latest = stream.latestNonce.get(kind);
    if (nonce !== '' && nonce !== latest) {
      return; // stale: answers a response that a newer one has replaced
    }
    let nacked = false;
    const sent = nonce === '' ? undefined : stream.responses.get(nonce);
    if (sent && !sent.answered) {
      sent.answered = true;
      const errorMessage = request.error_detail ? (request.error_detail.message ?? '') : null;
      nacked = errorMessage !== null;
      this.record({
        kind,
        version: sent.version,
        nonce,
        status: nacked ? 'NACK' : 'ACK',
        errorMessage,
        streamId: stream.id,
        resourceNames: sent.resourceNames,
        nodeId: stream.nodeId,
      });
    }
    const previous = stream.subscriptions.get(kind);
    const names = new Set(request.resource_names);
    stream.subscriptions.set(kind, names);
    if (nacked) {
      return; // never resend in reply to a NACK
    }
    const namesChanged = previous === undefined || previous.size !== names.size || [...names].some((name) => !previous.has(name));
    const state = this.state.get(kind)!;
    if (state.version > 0 && (namesChanged || stream.sentVersion.get(kind) !== state.version)) {
      this.send(stream, kind);
    }
  }

  private send(stream: AdsStream, kind: ResourceKind): void {
    const state = this.state.get(kind)!;
    if (state.version === 0) {
      return;
    }
    const subscribed = stream.subscriptions.get(kind) ?? new Set<string>();
    // An empty subscription is a wildcard for listeners and clusters.
    const wildcard = subscribed.size === 0 && (kind === 'listener' || kind === 'cluster');
    const resources = [...state.resources.values()].filter((resource) => wildcard || subscribed.has(resource.name));
    const nonce = String(this.nextNonce++);
    const version = String(state.version);
    stream.latestNonce.set(kind, nonce);
    stream.sentVersion.set(kind, state.version);
    stream.responses.set(nonce, { kind, version, resourceNames: resources.map((resource) => resource.name), answered: false });
    stream.call.write({ version_info: version, resources: resources.map((resource) => resource.any), type_url: TYPE_URLS[kind], nonce });
  }

  private record(record: ResponseRecord): void {
    this.records.push(record);
    const matching = this.waiters.filter((waiter) => waiter.matches(record));
    this.waiters = this.waiters.filter((waiter) => !matching.includes(waiter));
    for (const waiter of matching) {
      waiter.resolve(record);
    }
  }

  private describeResponses(): string {
    if (this.records.length === 0) {
      return 'none';
    }
    return this.records
      .map((record) => `${record.kind} v${record.version} ${record.status}${record.errorMessage ? ` (${record.errorMessage})` : ''}`)
      .join('; ');
  }
}
