import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAttachmentImageSource } from './attachment-source';

const origin = 'https://tasks.example.test';

test("an attachment's image is its content path on the page's own origin, and nothing else", () => {
  assert.equal(isAttachmentImageSource('/v1/attachments/12/content', origin), true);
  assert.equal(isAttachmentImageSource(`${origin}/v1/attachments/7/content`, origin), true);
  for (const other of [
    '//evil.example/v1/attachments/12/content',
    'https://evil.example/v1/attachments/12/content',
    'http://tasks.example.test/v1/attachments/12/content',
    '/v1/attachments/12',
    '/v1/attachments/abc/content',
    '/v1/attachments/12/content?download=1',
    '/v1/attachments/12/content#x',
    '/v1/attachments/12/content/../../tasks',
    '/v1/tasks/1/attachments',
    'data:image/png;base64,iVBORw0KGgo=',
    'javascript:alert(1)',
    '',
  ])
    assert.equal(isAttachmentImageSource(other, origin), false, other);
});
