/**
 * The estimator and the runtime meter against the platform's published library
 * costs: each row is a case of the platform's CEL library cost test (expression,
 * estimated cost, runtime cost; NaN: not evaluated here, as it needs an authorizer).
 * Left out: rows with list literals (the specification prices a list literal at 40
 * where the platform's CEL prices it 10), URL equality (no such overload here), and
 * ip.isCanonical (here a method of an `ip` variable, whose read costs 1).
 */
import { describe, expect, it } from "vitest";
import { createEnvironment, type CostSizes } from "./index.ts";

const env = createEnvironment({ variables: { authorizer: "kubernetes.authorization.Authorizer" } });
const noInputs: CostSizes = { variables: {}, unbounded: () => 1 };
const fifty = "'01234567890123456789012345678901234567890123456789'";
const ipv4 = "ip('192.168.0.1')";
const ipv6 = "ip('2001:db8:3333:4444:5555:6666:7777:8888')";

// expression, estimated cost, runtime cost
const rows: Array<[string, number, number]> = [
  // indexOf / lastIndexOf of a string: ceil(50 × 0.1)
  [`${fifty}.indexOf('123')`, 5, 5],
  [`${fifty}.lastIndexOf('123')`, 5, 5],
  // url(s): ceil(|s| × 0.1), then an accessor 1
  ["url('https:://example.com/').getScheme()", 4, 4],
  ["url('https:://example.com/').getHost()", 4, 4],
  ["url('https:://example.com/').getQuery()", 4, 4],
  // ip(s) and cidr(s): ceil(|s| × 0.1); accessors 1; equality 1
  [ipv4, 2, 2],
  [ipv6, 4, 4],
  [`${ipv4}.family()`, 3, 3],
  [`${ipv6}.isLoopback()`, 5, 5],
  [`${ipv4} == ip('192.168.0.1')`, 5, 5],
  [`${ipv6} == ip('192.168.0.1')`, 7, 7],
  ["cidr('192.168.0.0/16')", 2, 2],
  ["cidr('192.168.0.0/16').prefixLength()", 3, 3],
  ["cidr('2001:db8::/32').masked()", 3, 3],
  // quantity
  [`quantity("12Mi")`, 1, 1],
  [`isQuantity("20M")`, 1, 1],
  [`quantity("200M") == quantity("200M")`, 3, 3],
  [`quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")`, 6, 6],
  [`quantity("50M").isLessThan(quantity("50Mi"))`, 3, 3],
  [`quantity("200M").compareTo(quantity("0.2G")) > 0`, 4, 4],
  [`quantity("50k").add(quantity("20")) == quantity("50.02k")`, 5, 5],
  [`quantity("50k").sub(20) == quantity("49980")`, 4, 4],
  [`quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0`, 7, 7],
  [`quantity("50").isInteger()`, 2, 2],
  [`quantity("50.703k").asApproximateFloat() > 0.0`, 3, 3],
  // semver: ceil(|s| × 0.1)
  [`semver("1.0.0")`, 1, 1],
  [`semver("1234.56789012345.67890123456789")`, 4, 4],
  [`isSemver("1234.56789012345.67890123456789")`, 4, 4],
  // authorizer: builders 1, check 350,000
  ["authorizer.path('/healthz').check('get').allowed()", 350_003, NaN],
  ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()", 350_007, NaN],
];

describe("library costs as the platform publishes them", () => {
  it.each(rows)("%s: estimated %d, runtime %d", (source, estimated, runtime) => {
    const program = env.compile(source);
    expect(program.estimateCost(noInputs)).toBe(estimated);
    if (!Number.isNaN(runtime)) expect(program.evaluate({}).cost).toBe(runtime);
  });
});
