import { describe, expect, it } from "vitest";
import { CelEvaluationError, createEnvironment } from "../index.ts";

const env = createEnvironment({ variables: { x: "dyn" }, optionalTypes: true });

const run = (source: string, x: unknown = null): unknown => env.compile(source).evaluate({ x }).value;

function failure(source: string, x: unknown = null): string {
  try {
    run(source, x);
  } catch (err) {
    if (err instanceof CelEvaluationError) return err.message;
    throw err;
  }
  throw new Error(`expected ${source} to fail`);
}

type Row = [string, unknown];

function table(name: string, rows: Row[]): void {
  describe(name, () => {
    it.each(rows)("%s → %j", (source, want) => {
      expect(run(source)).toEqual(want);
    });
  });
}

table("quantity", [
  ["quantity('1Gi').asInteger()", 1073741824],
  ["quantity('50k').asInteger() == 50000", true],
  ["quantity('1.5').isInteger()", false],
  ["quantity('1500m').isInteger()", false],
  ["quantity('2000m').asInteger()", 2],
  ["quantity('50000000G').isInteger()", true],
  ["quantity('9999999999999999999999999999999999999G').isInteger()", false],
  ["quantity('50k').sub(20000).asApproximateFloat() == 30000.0", true],
  ["quantity('1.5Gi').asApproximateFloat()", 1610612736],
  ["quantity('200M').compareTo(quantity('0.2G'))", 0],
  ["quantity('50M').compareTo(quantity('50Mi'))", -1],
  ["quantity('50Mi').compareTo(quantity('50M'))", 1],
  ["quantity('150Mi').isGreaterThan(quantity('100Mi'))", true],
  ["quantity('50Mi').isGreaterThan(quantity('100Mi'))", false],
  ["quantity('50M').isLessThan(quantity('100M'))", true],
  ["quantity('100M').isLessThan(quantity('50M'))", false],
  ["quantity('50k').add(quantity('20k')) == quantity('70k')", true],
  ["quantity('50k').add(20) == quantity('50020')", true],
  ["quantity('50k').sub(quantity('20k')) == quantity('30k')", true],
  ["quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')", true],
  ["quantity('1Gi') == quantity('1024Mi')", true],
  ["quantity('-5').sign()", -1],
  ["quantity('0').sign()", 0],
  ["quantity('1m').sign()", 1],
  ["isQuantity('1.3G')", true],
  ["isQuantity('1.3Gi')", true],
  ["isQuantity('1,3G')", false],
  ["isQuantity('10000k')", true],
  ["isQuantity('200K')", false],
  ["isQuantity('Three')", false],
  ["isQuantity('Mi')", false],
]);

table("ip", [
  ["isIP('127.0.0.1')", true],
  ["isIP('::1')", true],
  ["isIP('127.0.0.256')", false],
  ["isIP(':::1')", false],
  ["isIP('010.0.0.1')", false],
  ["isIP('::ffff:1.2.3.4')", false],
  ["isIP('fe80::1%eth0')", false],
  ["ip.isCanonical('127.0.0.1')", true],
  ["ip.isCanonical('2001:db8::abcd')", true],
  ["ip.isCanonical('2001:DB8::ABCD')", false],
  ["ip.isCanonical('2001:db8::0:0:0:abcd')", false],
  ["ip('127.0.0.1').family()", 4],
  ["ip('::1').family()", 6],
  ["ip('0.0.0.0').isUnspecified()", true],
  ["ip('::').isUnspecified()", true],
  ["ip('::1').isUnspecified()", false],
  ["ip('127.0.0.1').isLoopback()", true],
  ["ip('192.168.0.1').isLoopback()", false],
  ["ip('::1').isLoopback()", true],
  ["ip('224.0.0.1').isLinkLocalMulticast()", true],
  ["ip('224.0.1.1').isLinkLocalMulticast()", false],
  ["ip('ff02::1').isLinkLocalMulticast()", true],
  ["ip('fd00::1').isLinkLocalMulticast()", false],
  ["ip('169.254.169.254').isLinkLocalUnicast()", true],
  ["ip('fe80::1').isLinkLocalUnicast()", true],
  ["ip('fd80::1').isLinkLocalUnicast()", false],
  ["ip('192.168.0.1').isGlobalUnicast()", true],
  ["ip('255.255.255.255').isGlobalUnicast()", false],
  ["ip('2001:db8::abcd').isGlobalUnicast()", true],
  ["ip('ff00::1').isGlobalUnicast()", false],
  ["string(ip('2001:db8::0:0:0:abcd'))", "2001:db8::abcd"],
  ["string(ip('1:0:0:2:0:0:0:3'))", "1:0:0:2::3"],
  ["ip('::1') == ip('0:0:0:0:0:0:0:1')", true],
]);

table("cidr", [
  ["isCIDR('192.168.0.0/16')", true],
  ["isCIDR('::1/128')", true],
  ["isCIDR('192.168.0.0/33')", false],
  ["isCIDR('::1/129')", false],
  ["isCIDR('192.168.0.0')", false],
  ["cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", true],
  ["cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))", false],
  ["cidr('192.168.0.0/24').containsIP('192.168.0.1')", true],
  ["cidr('192.168.0.0/24').containsIP('::1')", false],
  ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", true],
  ["cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))", false],
  ["cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", true],
  ["cidr('192.168.10.0/24').containsCIDR('192.168.0.0/16')", false],
  ["cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", true],
  ["cidr('::1/128').ip().family()", 6],
  ["string(cidr('192.168.0.1/24').masked())", "192.168.0.0/24"],
  ["cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", true],
  ["cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", false],
  ["cidr('192.168.0.0/16').prefixLength()", 16],
  ["cidr('::1/128').prefixLength()", 128],
]);

table("url", [
  ["isURL('https://user:pass@example.com:80/path?query=val#fragment')", true],
  ["isURL('/absolute-path')", true],
  ["isURL('https://a:b:c/')", false],
  ["isURL('../relative-path')", false],
  ["isURL('')", false],
  ["url('/path').getScheme()", ""],
  ["url('https://example.com/').getScheme()", "https"],
  ["url('https://example.com:80/').getHost()", "example.com:80"],
  ["url('https://example.com/').getHost()", "example.com"],
  ["url('https://[::1]:80/').getHost()", "[::1]:80"],
  ["url('https://[::1]/').getHost()", "[::1]"],
  ["url('/path').getHost()", ""],
  ["url('https://example.com:80/').getHostname()", "example.com"],
  ["url('https://127.0.0.1:80/').getHostname()", "127.0.0.1"],
  ["url('https://[::1]:80/').getHostname()", "::1"],
  ["url('https://example.com:80/').getPort()", "80"],
  ["url('https://example.com/').getPort()", ""],
  ["url('https://example.com/path').getEscapedPath()", "/path"],
  ["url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"],
  ["url('https://example.com').getEscapedPath()", ""],
  ["url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", { k1: ["a"], k2: ["b", "c"] }],
  ["url('https://example.com/path?key with spaces=value with spaces').getQuery()", { "key with spaces": ["value with spaces"] }],
  ["url('https://example.com/path?').getQuery()", {}],
  ["url('https://example.com/path#a?b=c').getQuery()", {}],
]);

table("semver", [
  ["isSemver('1.0.0')", true],
  ["isSemver('hello')", false],
  ["isSemver('v1.0')", false],
  ["isSemver('v1.0', true)", true],
  ["isSemver('01.01.01')", false],
  ["isSemver('01.01.01', true)", true],
  ["isSemver('1.0', true)", true],
  ["isSemver('1.0-alpha', true)", false],
  ["isSemver('0.1.0-alpha.1')", true],
  ["isSemver('1.0.0-01')", false],
  ["semver('1.2.3').major()", 1],
  ["semver('1.2.3').minor()", 2],
  ["semver('1.2.3').patch()", 3],
  ["semver('1.2.3').compareTo(semver('1.2.3'))", 0],
  ["semver('1.2.3').compareTo(semver('2.0.0'))", -1],
  ["semver('1.2.3').compareTo(semver('0.1.2'))", 1],
  ["semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))", true],
  ["semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta'))", true],
  ["semver('1.0.0-beta.2').isLessThan(semver('1.0.0-beta.11'))", true],
  ["semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))", true],
  ["semver('1.0.0+build').compareTo(semver('1.0.0'))", 0],
  ["semver('2.0.0').isGreaterThan(semver('1.9.9'))", true],
  ["semver('v1.0', true) == semver('1.0.0')", true],
]);

table("format", [
  ["format.dns1123Label().validate('my-name').hasValue()", false],
  ["format.dns1123Label().validate('My_Name').hasValue()", true],
  ["format.dns1123Label().validate('a.b').value()", ["must not contain dots"]],
  ["format.dns1123Subdomain().validate('apiextensions.example.io').hasValue()", false],
  ["format.dns1035Label().validate('1abc').hasValue()", true],
  ["format.dns1035Label().validate('abc-1').hasValue()", false],
  ["format.qualifiedName().validate('apiextensions.example.io/v1beta1').hasValue()", false],
  ["format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()", false],
  ["format.dns1123Label().validate('my-label-prefix-').hasValue()", true],
  ["format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()", false],
  ["format.labelValue().validate('').hasValue()", false],
  ["format.uri().validate('http://example.com').hasValue()", false],
  ["format.uri().validate('relative').hasValue()", true],
  ["format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", false],
  ["format.uuid().validate('nope').value()", ["does not match the UUID format"]],
  ["format.byte().validate('aGVsbG8=').hasValue()", false],
  ["format.byte().validate('!!').value()", ["invalid base64"]],
  ["format.date().validate('2021-01-01').hasValue()", false],
  ["format.date().validate('2021-02-30').value()", ["invalid date"]],
  ["format.datetime().validate('2021-01-01T00:00:00Z').hasValue()", false],
  ["format.datetime().validate('yesterday').value()", ["invalid datetime"]],
  ["format.named('dns1123Label').hasValue()", true],
  ["format.named('nope').hasValue()", false],
  ["format.named('labelValue').value().validate('a b').hasValue()", true],
]);

table("lists", [
  ["[1, 2, 3].isSorted()", true],
  ["[1, 3, 2].isSorted()", false],
  ["['a', 'b', 'b'].isSorted()", true],
  ["[].isSorted()", true],
  ["[1, 2, 3].sum()", 6],
  ["[1.5, 2.0].sum()", 3.5],
  ["[duration('1s'), duration('2s')].sum() == duration('3s')", true],
  ["[1, 2, 3].min()", 1],
  ["[1, 2, 3].max()", 3],
  ["['b', 'a'].min()", "a"],
  ["[true, false].max()", true],
  ["[1, 2, 2, 3].indexOf(2)", 1],
  ["[1, 2, 2, 3].lastIndexOf(2)", 2],
  ["['a', 'b', 'b', 'c'].lastIndexOf('b')", 2],
  ["[1.0].indexOf(1.1)", -1],
  ["[[1], [2]].indexOf([2])", 1],
]);

table("strings", [
  ["'hello'.charAt(1)", "e"],
  ["'héllo'.charAt(1)", "é"],
  ["'hello'.charAt(5)", ""],
  ["'aaa'.replace('a', 'b')", "bbb"],
  ["'aaa'.replace('a', 'b', 2)", "bba"],
  ["'aaa'.replace('a', 'b', 0)", "aaa"],
  ["strings.quote('a\\nb\"c')", '"a\\nb\\"c"'],
  ["'%s has %s'.format(['cart', 'items'])", "cart has items"],
  ["'costing %.2f'.format([1.5])", "costing 1.50"],
  ["'%d items'.format([3])", "3 items"],
  ["'%x %o %b %%'.format([255, 8, 5])", "ff 10 101 %"],
]);

table("sets", [
  ["sets.contains([1, 2, 3], [2, 3])", true],
  ["sets.contains([1, 2], [3])", false],
  ["sets.contains([1], [])", true],
  ["sets.contains([1.0, 2.0], [2.0])", true],
  ["sets.equivalent([1, 2, 2], [2, 1])", true],
  ["sets.equivalent([1, 2], [1, 3])", false],
  ["sets.intersects(['a', 'b'], ['c', 'b'])", true],
  ["sets.intersects(['a'], [])", false],
]);

describe("values from the activation", () => {
  const rows: [string, unknown, unknown][] = [
    ["quantity(x.limit).isGreaterThan(quantity('1Gi'))", { limit: "2Gi" }, true],
    ["x.items.sum()", { items: [1, 2, 3] }, 6],
    ["cidr(x.net).containsIP(x.addr)", { net: "10.0.0.0/8", addr: "10.1.2.3" }, true],
    ["url(x.u).getHost()", { u: "https://example.com:8443/" }, "example.com:8443"],
    ["semver(x.v, true).major()", { v: "v2.1" }, 2],
  ];
  it.each(rows)("%s", (source, x, want) => {
    expect(run(source, x)).toEqual(want);
  });
});

describe("errors carry the platform's text", () => {
  const rows: [string, RegExp][] = [
    ["quantity('200K')", /^unable to parse quantity's suffix$/],
    ["quantity('Three')", /^quantities must match the regular expression/],
    ["quantity('9999999999999999999999999999999999999G').asInteger()", /^cannot convert value to integer$/],
    ["ip('127.0.0.256')", /^IP Address parse error during conversion from string/],
    ["ip('::ffff:1.2.3.4')", /^IPv4-mapped IPv6 address is not allowed$/],
    ["ip('fe80::1%eth0')", /^IP address with zone value is not allowed$/],
    ["cidr('192.168.0.0/33')", /^network address parse error during conversion from string/],
    ["url('../relative-path')", /^URL parse error during conversion from string: invalid URI for request$/],
    ["semver('hello')", /^No Major.Minor.Patch elements found$/],
    ["semver('1.0')", /^No Major.Minor.Patch elements found$/],
    ["semver('1.0-rc', true)", /^short version cannot contain PreRelease\/Build meta data$/],
    ["[].min()", /^min called on empty list$/],
    ["[].max()", /^max called on empty list$/],
    ["'abc'.charAt(4)", /^index out of range: 4$/],
    ["'%d'.format([1.5])", /^error during formatting: decimal clause can only be used on integers$/],
  ];
  it.each(rows)("%s", (source, want) => {
    expect(failure(source)).toMatch(want);
  });

  it("does not quote the value that failed to parse", () => {
    expect(failure("ip(x)", "999.secret.0.1")).not.toContain("secret");
    expect(failure("url(x)", "secret-relative")).not.toContain("secret");
  });
});

describe("type checking", () => {
  const rejected: string[] = ["quantity(1)", "ip('::1').containsIP('::1')", "cidr('::/0').family()", "[1, 2].indexOf('a')", "format.nope()", "semver('1.0.0').isGreaterThan(quantity('1'))"];
  it.each(rejected)("rejects %s at compile time", (source) => {
    expect(() => env.compile(source)).toThrow(/compilation failed/);
  });
  it("types library results", () => {
    expect(env.compile("quantity('1').asInteger()").resultType).toBe("int");
    expect(env.compile("url('/a').getQuery()").resultType).toBe("map<string, list<string>>");
    expect(env.compile("format.dns1123Label().validate('a')").resultType).toBe("optional<list<string>>");
  });
});
