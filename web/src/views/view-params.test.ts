/** A saved view and the page's address (view-params.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { View } from '@contract';
import { NO_FILTERS, filtersFromSearch, hasFilters, tasksQuery } from '../lib/task-filters';
import { viewFieldsOf, viewScope, viewSearch } from './view-params';

const view = (fields: Partial<View>): View =>
  ({ id: 1, name: 'V', filters: {}, sort: null, layout: 'rows', sharedWithTeam: false, ...fields }) as View;

describe('a saved view and the address', () => {
  test('the filters the filter bar shows, the order and the layout go in the address; the rest stay the view’s scope', () => {
    const saved = view({
      filters: {
        priority: ['urgent', 'high'],
        taskListId: ['7'],
        isCompleted: 'false',
        labelId: ['3'],
      } as View['filters'],
      sort: '-dueDate',
      layout: 'board',
    });
    assert.equal(
      viewSearch(saved),
      '?view=board&labelId=3&priority=urgent&priority=high&isCompleted=false&sort=-dueDate',
    );
    assert.deepEqual(viewScope(saved).params, [['taskListId', '7']]);
    const filters = filtersFromSearch(viewSearch(saved));
    assert.equal(
      tasksQuery(filters, viewScope(saved)).toString(),
      'labelId=3&priority=urgent&priority=high&isCompleted=false&sort=-dueDate&taskListId=7&include=labels',
    );
  });

  test('saving a page keeps its scope among the filters and its order apart', () => {
    const filters = { ...NO_FILTERS, priority: ['low' as const], sort: 'title' as const };
    assert.deepEqual(viewFieldsOf(filters, { listId: 4 }), {
      filters: { priority: ['low'], taskListId: ['4'] },
      sort: 'title',
    });
    assert.deepEqual(viewFieldsOf(NO_FILTERS, {}), { filters: {}, sort: null });
  });

  test('an order alone is no filter', () => {
    assert.equal(hasFilters({ ...NO_FILTERS, sort: '-priority' }), false);
  });
});
