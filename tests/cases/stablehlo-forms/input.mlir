module @jit_s attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32> loc("x"), %arg1: tensor<8x!quant.uniform<i8:f32, 0.5:-1>>) -> (tensor<?x4xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.scatter"(%arg0, %arg0) <{indices_are_sorted = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> loc(#loc3)
    %1:2 = stablehlo.while(%iterArg = %0, %iterArg_0 = %0) : tensor<?x4xf32>, tensor<?x4xf32>
    cond {
      %c = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      stablehlo.return %iterArg, %iterArg_0 : tensor<?x4xf32>, tensor<?x4xf32>
    }
    return %1#0 : tensor<?x4xf32>
  }
}
#loc3 = loc("jit(s)/scatter"(#loc1))
