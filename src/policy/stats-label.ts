/**
 * The stats label: a channel option that names the channel in stats
 * snapshots and metrics (`getLoadBalancerStats()`), and nothing else.
 *
 * It must not reach the subchannels. grpc-js's subchannel pool shares a
 * connection between channels only when their subchannel options are equal
 * (subchannel-pool.ts `channelOptionsEqual`, which skips only keys starting
 * `grpc.internal.no_subchannel`), so a label passed down with the rest gave
 * every labelled channel its own connection to every backend: giving each
 * channel its own label, as docs/observability.md advises, doubled the
 * connections of two channels that had shared them.
 */
import { ChannelOptions } from '@grpc/grpc-js';

/** Channel option naming this channel in stats snapshots; optional. */
export const STATS_LABEL_OPTION = 'grpc-js-peak-ewma.stats_label';

/** The label `options` give, or '' for none. */
export function statsLabelOf(options: ChannelOptions): string {
  return String(options[STATS_LABEL_OPTION] ?? '');
}

/** `options` as the endpoints' children (and so the subchannels) get them: without the label. */
export function childOptionsOf(options: ChannelOptions): ChannelOptions {
  if (!(STATS_LABEL_OPTION in options)) {
    return options;
  }
  const { [STATS_LABEL_OPTION]: _label, ...rest } = options;
  return rest;
}
