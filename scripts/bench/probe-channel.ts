/**
 * A load-test client's channel, as client-host.ts builds it for a run (and
 * tests build it to check what a run's picker sees): the policy's service
 * config (or xDS), and with several methods the `callMarker` interceptor, as
 * the README puts it on a user's channel.
 */
import { ChannelOptions, credentials, Interceptor } from '@grpc/grpc-js';
import { createProbeClient, ProbeClient } from '../lib/probe-service';
import { FLEET_TARGET } from './fleet-resolver';
import type { ClientPrepare } from './ipc';
import { loadPackage } from './package-under-test';
import { serviceConfigJson } from './policies';

/** The grpc-js-xds option that gives a channel its own bootstrap (grpc-js-lb-internals.md §14). */
const XDS_BOOTSTRAP_OPTION = 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config';

export type ChannelSpec = Pick<ClientPrepare, 'policy' | 'addresses' | 'dynamicAddresses' | 'xdsBootstrap' | 'xdsTarget' | 'timeFactor' | 'markMethods' | 'peakEwmaConfig' | 'retryAttempts'>;

function channelTarget(spec: ChannelSpec): string {
  if (spec.xdsTarget) {
    return spec.xdsTarget;
  }
  if (spec.dynamicAddresses) {
    return FLEET_TARGET;
  }
  return `ipv4:${spec.addresses.join(',')}`;
}

/** grpc-js's reconnect back-off (backoff-timeout.ts): 1 s first, each wait capped at 120 s before its jitter. */
const INITIAL_RECONNECT_BACKOFF_MS = 1000;
const MAX_RECONNECT_BACKOFF_MS = 120_000;

/** The channel's options; `extra` (e.g. a stats label) on top. */
export function probeChannelOptions(spec: ChannelSpec, extra: ChannelOptions = {}): ChannelOptions {
  const options: ChannelOptions = {
    // channelz off: it costs CPU per call on a 2-core machine, alike for every policy.
    'grpc.enable_channelz': 0,
    // A time-scaled run (scale.ts) scales the channel's own clock too: a backend
    // restarted in place (s19) is reconnected to after the back-off a channel
    // of the reference's would wait, × F. At F = 1 these are grpc-js's defaults.
    'grpc.initial_reconnect_backoff_ms': INITIAL_RECONNECT_BACKOFF_MS * spec.timeFactor,
    'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS * spec.timeFactor,
    ...extra,
  };
  if (spec.xdsBootstrap) {
    options[XDS_BOOTSTRAP_OPTION] = spec.xdsBootstrap;
  } else {
    options['grpc.service_config'] = serviceConfigJson(spec.policy, spec.timeFactor, spec.peakEwmaConfig, spec.retryAttempts);
  }
  if (spec.markMethods) {
    // The package build's own marker: the picker reads the symbol of the copy it was loaded from.
    options.interceptors = [loadPackage().callMarker satisfies Interceptor];
  }
  return options;
}

export function newProbeClient(spec: ChannelSpec, extra: ChannelOptions = {}): ProbeClient {
  return createProbeClient(channelTarget(spec), credentials.createInsecure(), probeChannelOptions(spec, extra));
}
