# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 8, 5, 5), dtype="float32"), a1: R.Tensor((8,), dtype="float32"), a2: R.Tensor((8,), dtype="float32"), a3: R.Tensor((8,), dtype="float32"), a4: R.Tensor((8,), dtype="float32")) -> R.Tuple(R.Tensor((2, 8, 5, 5), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")):
        gv: R.Tuple(R.Tensor((2, 8, 5, 5), dtype="float32"), R.Tensor((8,), dtype="float32"), R.Tensor((8,), dtype="float32")) = R.nn.batch_norm(a0, a1, a2, a3, a4, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=True)
        return gv
