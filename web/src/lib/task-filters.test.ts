/** The view (list or board) in the address, beside the filters (task-filters.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { filtersFromSearch, layoutFromSearch, NO_FILTERS, searchOfView, type TaskFilters } from './task-filters';

describe('the view and the filters in the address', () => {
  test('the view is in the address beside the filters; the list is the default and leaves no trace', () => {
    const view: TaskFilters = { ...NO_FILTERS, priority: ['urgent'] };
    assert.equal(searchOfView(view, 'board'), '?view=board&priority=urgent');
    assert.equal(searchOfView(view, 'list'), '?priority=urgent');
    assert.equal(searchOfView(NO_FILTERS, 'list'), '');
    assert.equal(layoutFromSearch('?view=board&priority=urgent'), 'board');
    assert.equal(layoutFromSearch('?view=kanban'), 'list', 'anything else is the list');
    assert.deepEqual(filtersFromSearch('?view=board&priority=urgent'), view, 'the view is not a filter');
  });
});
