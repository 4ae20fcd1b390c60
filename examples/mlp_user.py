from tvm.script import ir as I
from tvm.script import relax as R

# One MLP layer, relu(x @ w + b), as a user writes it: nested calls, no annotations on the
# bindings, a string dimension for the batch. The reader normalizes it as TVM does.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 16), "float32"), w: R.Tensor((16, 4), "float32"), b: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.nn.relu(R.add(R.matmul(x, w), b))
            R.output(y)
        return y
