/**
 * Reading xds-fixtures/: Envoy-compatible resources in YAML or JSON. A file
 * holds one resource, a list of them, or a DiscoveryResponse-shaped
 * `{version_info?, resources: [...]}` (what Envoy's file-based xDS reads).
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';

export const FIXTURES_DIR = path.resolve(__dirname, '..', '..', 'xds-fixtures');

export function fixturePath(relative: string): string {
  return path.isAbsolute(relative) ? relative : path.join(FIXTURES_DIR, relative);
}

/** Parses a .yaml/.yml/.json file. */
export function readDocument(file: string): unknown {
  const full = fixturePath(file);
  const text = fs.readFileSync(full, 'utf8');
  return full.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
}

export function loadResourceFile(file: string): object[] {
  const document = readDocument(file);
  if (Array.isArray(document)) {
    return document as object[];
  }
  if (typeof document === 'object' && document !== null) {
    const resources = (document as { resources?: unknown }).resources;
    if (resources !== undefined) {
      if (!Array.isArray(resources)) {
        throw new Error(`${file}: "resources" must be a list`);
      }
      return resources as object[];
    }
    return [document];
  }
  throw new Error(`${file}: expected a resource, a list or {resources: [...]}`);
}

/** The one resource in `file`. */
export function loadResource(file: string): Record<string, unknown> {
  const resources = loadResourceFile(file);
  if (resources.length !== 1) {
    throw new Error(`${file}: expected exactly one resource, found ${resources.length}`);
  }
  return resources[0] as Record<string, unknown>;
}

/** The gRPC xDS bootstrap fixture with its server_uri pointed at `serverAddress`. */
export function loadBootstrap(serverAddress: string, file = 'bootstrap.json'): object {
  const bootstrap = readDocument(file) as { xds_servers: { server_uri: string }[] };
  return { ...bootstrap, xds_servers: bootstrap.xds_servers.map((server) => ({ ...server, server_uri: serverAddress })) };
}

/**
 * A copy of a ClusterLoadAssignment with its endpoints' socket addresses
 * replaced, in order, by `addresses` ("127.0.0.1:port"): fixtures carry
 * placeholder ports, tests bind backends to free ones.
 */
export function withAddresses(assignment: Record<string, unknown>, addresses: readonly string[]): Record<string, unknown> {
  const copy = structuredClone(assignment) as {
    endpoints?: { lb_endpoints?: { endpoint?: { address?: { socket_address?: Record<string, unknown> } } }[] }[];
  };
  const sockets = (copy.endpoints ?? []).flatMap((locality) =>
    (locality.lb_endpoints ?? []).map((lbEndpoint) => lbEndpoint.endpoint?.address?.socket_address),
  );
  if (sockets.length !== addresses.length || sockets.some((socket) => socket === undefined)) {
    throw new Error(`the assignment has ${sockets.length} socket addresses, ${addresses.length} given`);
  }
  sockets.forEach((socket, index) => {
    const [host, port] = splitAddress(addresses[index]);
    socket!.address = host;
    socket!.port_value = port;
  });
  return copy as Record<string, unknown>;
}

function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  return [address.slice(0, colon).replace(/^\[|\]$/g, ''), Number(address.slice(colon + 1))];
}

/** An EDS ClusterLoadAssignment built from plain addresses, one entry per locality. */
export function clusterLoadAssignment(
  clusterName: string,
  localities: readonly { region: string; zone?: string; weight?: number; addresses: readonly string[] }[],
): Record<string, unknown> {
  return {
    '@type': 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
    cluster_name: clusterName,
    endpoints: localities.map((locality) => ({
      locality: { region: locality.region, zone: locality.zone ?? '' },
      load_balancing_weight: locality.weight ?? 1,
      lb_endpoints: locality.addresses.map((address) => {
        const [host, port] = splitAddress(address);
        return { endpoint: { address: { socket_address: { address: host, port_value: port } } } };
      }),
    })),
  };
}
