/**
 * A labelled <select> of a filter form: the value submitted is the option's value, the text shown its
 * label (the value itself unless given); `any` adds a first, empty option for "no filter".
 */
export function SelectField<T extends string>(props: { name: string; label: string; options: ReadonlyArray<T | { value: T; label: string }>; selected: T | undefined; any?: string }) {
  const options = props.options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));
  return (
    <>
      <label for={props.name}>{props.label}</label>
      <select id={props.name} name={props.name}>
        {props.any !== undefined ? <option value="">{props.any}</option> : null}
        {options.map((o) => (
          <option value={o.value} selected={o.value === props.selected}>
            {o.label}
          </option>
        ))}
      </select>
    </>
  );
}
