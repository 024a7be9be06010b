/** The Any type URLs our converters are registered under (gRFC A52 keys the registry by them). */
export const PEAK_EWMA_TYPE_URL =
  'type.googleapis.com/envoy.extensions.load_balancing_policies.peak_ewma.v3alpha.PeakEwma';
export const LEAST_REQUEST_TYPE_URL =
  'type.googleapis.com/envoy.extensions.load_balancing_policies.least_request.v3.LeastRequest';
export const XDS_TYPED_STRUCT_TYPE_URL = 'type.googleapis.com/xds.type.v3.TypedStruct';
export const UDPA_TYPED_STRUCT_TYPE_URL = 'type.googleapis.com/udpa.type.v1.TypedStruct';
/** grpc-js-xds converts this one itself; we register a checking converter over it (wrr-locality-converter.ts). */
export const WRR_LOCALITY_TYPE_URL = 'type.googleapis.com/envoy.extensions.load_balancing_policies.wrr_locality.v3.WrrLocality';
