/** The twelve list colours as a group of radio buttons drawn as swatches (arrow keys move). */
import { LIST_COLORS, type ListColor } from '@contract/enums';
import { swatchOf } from '../lib/colors';

interface Props {
  name: string;
  value: string;
  onChange: (color: ListColor) => void;
}

export function ColorPicker({ name, value, onChange }: Props) {
  return (
    <fieldset class="color-picker">
      <legend>Colour</legend>
      {LIST_COLORS.map((color) => (
        <label key={color} class="swatch" title={color}>
          <input type="radio" name={name} value={color} checked={value === color} onChange={() => onChange(color)} />
          <span class="swatch-dot" style={{ background: swatchOf(color) }} aria-hidden="true" />
          <span class="sr-only">{color}</span>
        </label>
      ))}
    </fieldset>
  );
}

export function ColorDot({ color }: { color: string }) {
  return <span class="color-dot" style={{ background: swatchOf(color) }} aria-hidden="true" />;
}
