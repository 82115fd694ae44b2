import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeS3Config, parseS3Url } from './s3-config.js';

const parse = (raw: string | undefined) => {
  const problems: string[] = [];
  return { config: parseS3Url(raw, problems), problems };
};

test('unset or empty: no S3 (attachments stay on disk), no problem', () => {
  assert.deepEqual(parse(undefined), { config: null, problems: [] });
  assert.deepEqual(parse('  '), { config: null, problems: [] });
});

test('an https endpoint with keys, bucket, region; path-style by default; escapes decoded', () => {
  assert.deepEqual(parse('https://AKIA123:se%2Fcr%2Bet@s3.eu-central-1.amazonaws.com/my-bucket?region=eu-central-1'), {
    config: {
      endpoint: 'https://s3.eu-central-1.amazonaws.com',
      region: 'eu-central-1',
      bucket: 'my-bucket',
      accessKeyId: 'AKIA123',
      secretAccessKey: 'se/cr+et',
      forcePathStyle: true,
    },
    problems: [],
  });
});

test('http with a port, a key prefix, forcePathStyle=false, and the default region', () => {
  const { config, problems } = parse('http://k:s@127.0.0.1:9000/files/tasklane/prod/?forcePathStyle=false');
  assert.deepEqual(problems, []);
  assert.equal(config?.endpoint, 'http://127.0.0.1:9000');
  assert.equal(config?.prefix, 'tasklane/prod/');
  assert.equal(config?.region, 'us-east-1');
  assert.equal(config?.forcePathStyle, false);
});

test('each malformed part is named, and the secret is never echoed', () => {
  const cases: [string, RegExp][] = [
    ['not a url', /is not a URL/],
    ['s3://k:topsecret@host/bucket', /must start with https:\/\//],
    ['https://s3.example.com/bucket', /access key id and the secret access key/],
    ['https://k:topsecret@s3.example.com/', /must name the bucket/],
    ['https://k:topsecret@s3.example.com/Bad_Bucket', /does not allow/],
    ['https://k:topsecret@s3.example.com/bucket?regoin=x', /unknown parameter "regoin"/],
    ['https://k:topsecret@s3.example.com/bucket?forcePathStyle=yes', /true or false/],
    ['https://k:topsecret@s3.example.com/bucket?region=EU%20Central', /not a region name/],
    ['https://k:top%ZZsecret@s3.example.com/bucket', /malformed %-escape/],
  ];
  for (const [raw, expected] of cases) {
    const { config, problems } = parse(raw);
    assert.equal(config, null, raw);
    assert.match(problems.join('\n'), expected, raw);
    assert.ok(!problems.join('\n').includes('topsecret'), `${raw}: the secret is echoed`);
  }
});

test('describeS3Config leaves the secret out', () => {
  const { config } = parse('https://AKIA123:topsecret@s3.example.com/bucket/pre?region=eu-west-1');
  const text = describeS3Config(config!);
  assert.match(text, /https:\/\/s3\.example\.com\/bucket\/pre\/ \(region eu-west-1, access key AKIA123, path-style\)/);
  assert.ok(!text.includes('topsecret'));
});
