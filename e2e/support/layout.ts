/**
 * What a screen at a given width must hold to: the page never scrolls sideways, and every control
 * can be reached. A control is unreachable when it lies outside the window's width with no
 * scrolling box to bring it into view, or when a box that hides its overflow (`overflow: hidden`
 * or `clip`) cuts it off. The checks run in the page, so they are given as strings (no DOM types
 * here).
 */
import type { Page } from 'playwright-core';

/** How a layout fails at the window's width now: one line per problem, none when it fits. */
export interface LayoutProblems {
  /** The document is wider than the window, with what sticks out. */
  overflow: string | null;
  /** Controls that cannot be reached, each with why. */
  unreachable: string[];
}

/**
 * Runs in the page. `reachable(element)` walks up from a control: a box that hides its
 * overflow must hold the control's rectangle (else it is cut off); a box that scrolls brings the
 * control into its own view, so from there on the box itself must be reachable; the window, at
 * last, must hold it across (the page may scroll down, never sideways). A pixel of slack
 * absorbs sub-pixel rounding.
 */
const CHECK = `(() => {
  const SLACK = 1;
  const describe = (el) => {
    const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('title') || '').trim().replace(/\\s+/g, ' ');
    return el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + (name ? ' "' + name.slice(0, 50) + '"' : '');
  };
  const scrolls = (value) => value === 'auto' || value === 'scroll';
  const hides = (value) => value === 'hidden' || value === 'clip';
  const why = (el, rect) => {
    for (let box = el.parentElement; box && box !== document.body && box !== document.documentElement; box = box.parentElement) {
      const style = getComputedStyle(box);
      const edge = box.getBoundingClientRect();
      if (hides(style.overflowX) && (rect.left < edge.left - SLACK || rect.right > edge.right + SLACK))
        return 'cut off across by ' + describe(box).slice(0, 80);
      if (hides(style.overflowY) && (rect.top < edge.top - SLACK || rect.bottom > edge.bottom + SLACK))
        return 'cut off down by ' + describe(box).slice(0, 80);
      if (scrolls(style.overflowX) || scrolls(style.overflowY)) {
        const beyond = why(box, edge);
        return beyond && 'inside ' + describe(box).slice(0, 80) + ', itself ' + beyond;
      }
    }
    if (rect.left < -SLACK || rect.right > innerWidth + SLACK)
      return 'outside the window (' + Math.round(rect.left) + ' to ' + Math.round(rect.right) + ' of ' + innerWidth + ' px)';
    return null;
  };
  const controls = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')]
    .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
    // A screen reader's text (.sr-only) is a pixel square on purpose.
    .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 1 && r.height > 1; });
  const unreachable = controls.flatMap((el) => {
    const reason = why(el, el.getBoundingClientRect());
    return reason ? [describe(el) + ': ' + reason] : [];
  });
  const content = document.documentElement.scrollWidth;
  const wider = [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > innerWidth + SLACK)
    .map((el) => describe(el).slice(0, 80))
    .slice(0, 8);
  return {
    overflow: content > innerWidth ? 'the page is ' + content + ' px wide in a ' + innerWidth + ' px window: ' + wider.join(', ') : null,
    unreachable: unreachable.slice(0, 20),
  };
})()`;

/** The screen's layout problems at the window's width now (LayoutProblems). */
export async function layoutProblems(page: Page): Promise<LayoutProblems> {
  return (await page.evaluate(CHECK)) as LayoutProblems;
}
