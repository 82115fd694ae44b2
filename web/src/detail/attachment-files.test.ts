import assert from 'node:assert/strict';
import { test } from 'node:test';
import { humanSize, isRasterImage, markdownReference } from './attachment-files';

test('raster images are shown as images; SVG and other files are not', () => {
  for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp']) assert.equal(isRasterImage(type), true);
  for (const type of ['image/svg+xml', 'application/pdf', 'text/plain']) assert.equal(isRasterImage(type), false);
});

test('sizes read in decimal units', () => {
  assert.equal(humanSize(1), '1 byte');
  assert.equal(humanSize(999), '999 bytes');
  assert.equal(humanSize(1500), '1.5 KB');
  assert.equal(humanSize(25_000_000), '25 MB');
  assert.equal(humanSize(10 * 1024 ** 3), '11 GB');
});

test('a comment refers to an image as an image, to any other file as a link, its name escaped', () => {
  assert.equal(
    markdownReference({ id: 3, name: 'shot.png', contentType: 'image/png' }),
    '![shot.png](/v1/attachments/3/content)',
  );
  assert.equal(
    markdownReference({ id: 4, name: 'notes [draft].txt', contentType: 'text/plain' }),
    '[notes \\[draft\\].txt](/v1/attachments/4/content)',
  );
});
