// Two parts as mlir-opt -split-input-file reads them: bare functions, no module written.
func.func @first(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

"func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "second"}> ({
^bb0(%arg0: tensor<f32>):
  %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  "func.return"(%0) : (tensor<f32>) -> ()
}) : () -> ()
func.func private @decl(tensor<f32>) -> tensor<f32>
