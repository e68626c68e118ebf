import { useQuery } from "@tanstack/react-query";

export function useProjectQuota(id: number) {
  return useQuery({ queryKey: ["projects", id, "quota"], queryFn: async () => ({ used_bytes: 0 }) });
}
