# Memory builtins with keywords and defaults, as TVM's VM tests write them.
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        s0 = R.vm.alloc_storage(R.shape([24]), R.prim_value(0), R.dtype("uint8"))
        s1 = R.vm.alloc_storage(R.shape([24]), runtime_device_index=0, dtype="uint8", storage_scope="global")
        t0 = R.vm.alloc_tensor(s0, R.prim_value(0), R.shape([2, 3]), R.dtype("float32"))
        t1 = R.vm.alloc_tensor(s1, offset=0, shape=R.shape([2, 3]), dtype=R.dtype("float32"))
        s2 = R.memory.alloc_storage(R.shape([24]), virtual_device_index=0, storage_scope="global", dtype="float32")
        t2 = R.memory.alloc_tensor(s2, 0, R.shape([2, 3]), dtype="float32")
        t3: R.Tensor((2, 3), dtype="float32") = R.builtin.alloc_tensor(R.shape([2, 3]), "float32", 0)
        R.memory.kill_tensor(t2)
        R.memory.kill_storage(s2)
        R.vm.kill_object(s1)
        n: R.Any = R.null_value()
        return t3
