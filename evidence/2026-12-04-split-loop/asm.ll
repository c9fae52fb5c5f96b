; ModuleID = 'kernels.b66bfefa89a51093-cgu.0'
source_filename = "kernels.b66bfefa89a51093-cgu.0"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%"core::cell::UnsafeCell<[f32; 0]>" = type { [0 x float] }

@probe_tile = external local_unnamed_addr addrspace(3) global %"core::cell::UnsafeCell<[f32; 0]>"

; Function Attrs: nounwind
define void @stencil3(float* nocapture readonly %x, i64 %n, float* nocapture %y) unnamed_addr #0 {
start:
  %0 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %_0.i.i = icmp ult i32 %0, 1024
  tail call void @llvm.assume(i1 %_0.i.i)
  %thread = zext i32 %0 to i64
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %.off = add i32 %1, -1
  %2 = icmp ult i32 %.off, 1024
  tail call void @llvm.assume(i1 %2)
  %threads = zext i32 %1 to i64
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %4 = icmp sgt i32 %3, 0
  tail call void @llvm.assume(i1 %4)
  %_10 = zext i32 %3 to i64
  %step = mul nuw nsw i64 %_10, %threads
  %5 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %_0.i.i14 = icmp ult i32 %5, 2147483647
  tail call void @llvm.assume(i1 %_0.i.i14)
  %_13 = zext i32 %5 to i64
  %6 = mul nuw nsw i64 %_13, %threads
  %_1525 = icmp ult i64 %6, %n
  br i1 %_1525, label %bb2.lr.ph, label %bb7

bb2.lr.ph:                                        ; preds = %start
  %_21 = add nuw nsw i64 %thread, 1
  %_20 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_21
  %7 = icmp eq i32 %0, 0
  %_32 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %thread
  %_36 = add nuw nsw i64 %thread, 2
  %_35 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_36
  %_29 = add nuw nsw i64 %threads, 1
  %_28 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_29
  br i1 %7, label %bb2.us, label %bb2.preheader

bb2.preheader:                                    ; preds = %bb2.lr.ph
  %8 = bitcast float* %_20 to i32*
  br label %bb2

bb2.us:                                           ; preds = %bb2.lr.ph, %bb6.us
  %base.sroa.0.026.us = phi i64 [ %13, %bb6.us ], [ %6, %bb2.lr.ph ]
  %i.us = add i64 %base.sroa.0.026.us, %thread
  %_46.us = icmp ult i64 %i.us, %n
  br i1 %_46.us, label %bb16.us, label %bb18.us

bb16.us:                                          ; preds = %bb2.us
  %_47.us = getelementptr inbounds float, float* %x, i64 %i.us
  %9 = load float, float* %_47.us, align 4
  br label %bb18.us

bb18.us:                                          ; preds = %bb16.us, %bb2.us
  %_19.sroa.0.0.us = phi float [ %9, %bb16.us ], [ 0.000000e+00, %bb2.us ]
  store float %_19.sroa.0.0.us, float* %_20, align 4
  %_23.us = add i64 %base.sroa.0.026.us, -1
  %_48.us = icmp ult i64 %_23.us, %n
  br i1 %_48.us, label %bb19.us, label %bb21.us

bb19.us:                                          ; preds = %bb18.us
  %_49.us = getelementptr inbounds float, float* %x, i64 %_23.us
  %10 = load float, float* %_49.us, align 4
  br label %bb21.us

bb21.us:                                          ; preds = %bb19.us, %bb18.us
  %_22.sroa.0.0.us = phi float [ %10, %bb19.us ], [ 0.000000e+00, %bb18.us ]
  store float %_22.sroa.0.0.us, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), align 4
  %_26.us = add i64 %base.sroa.0.026.us, %threads
  %_50.us = icmp ult i64 %_26.us, %n
  br i1 %_50.us, label %bb22.us, label %bb24.us

bb22.us:                                          ; preds = %bb21.us
  %_51.us = getelementptr inbounds float, float* %x, i64 %_26.us
  %11 = load float, float* %_51.us, align 4
  br label %bb24.us

bb24.us:                                          ; preds = %bb22.us, %bb21.us
  %_25.sroa.0.0.us = phi float [ %11, %bb22.us ], [ 0.000000e+00, %bb21.us ]
  store float %_25.sroa.0.0.us, float* %_28, align 4
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  br i1 %_46.us, label %bb5.us, label %bb6.us

bb5.us:                                           ; preds = %bb24.us
  %_31.us = load float, float* %_32, align 4
  %_33.us = load float, float* %_20, align 4
  %_30.us = fadd float %_31.us, %_33.us
  %_34.us = load float, float* %_35, align 4
  %_37.us = getelementptr inbounds float, float* %y, i64 %i.us
  %12 = fadd float %_30.us, %_34.us
  store float %12, float* %_37.us, align 4
  br label %bb6.us

bb6.us:                                           ; preds = %bb5.us, %bb24.us
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  %13 = add i64 %base.sroa.0.026.us, %step
  %_15.us = icmp ult i64 %13, %n
  br i1 %_15.us, label %bb2.us, label %bb7

bb7:                                              ; preds = %bb6, %bb6.us, %start
  ret void

bb2:                                              ; preds = %bb2.preheader, %bb6
  %base.sroa.0.026 = phi i64 [ %17, %bb6 ], [ %6, %bb2.preheader ]
  %i = add i64 %base.sroa.0.026, %thread
  %_46 = icmp ult i64 %i, %n
  br i1 %_46, label %bb16, label %bb6.critedge

bb16:                                             ; preds = %bb2
  %_47 = getelementptr inbounds float, float* %x, i64 %i
  %14 = bitcast float* %_47 to i32*
  %15 = load i32, i32* %14, align 4
  store i32 %15, i32* %8, align 4
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  %_31 = load float, float* %_32, align 4
  %_33 = load float, float* %_20, align 4
  %_30 = fadd float %_31, %_33
  %_34 = load float, float* %_35, align 4
  %_37 = getelementptr inbounds float, float* %y, i64 %i
  %16 = fadd float %_30, %_34
  store float %16, float* %_37, align 4
  br label %bb6

bb6.critedge:                                     ; preds = %bb2
  store float 0.000000e+00, float* %_20, align 4
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  br label %bb6

bb6:                                              ; preds = %bb6.critedge, %bb16
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  %17 = add i64 %base.sroa.0.026, %step
  %_15 = icmp ult i64 %17, %n
  br i1 %_15, label %bb2, label %bb7
}

; Function Attrs: nounwind
define void @tile_sums(float* nocapture readonly %x, i64 %n, float* nocapture %sums) unnamed_addr #0 {
start:
  %0 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %_0.i.i = icmp ult i32 %0, 1024
  tail call void @llvm.assume(i1 %_0.i.i)
  %thread = zext i32 %0 to i64
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %.off = add i32 %1, -1
  %2 = icmp ult i32 %.off, 1024
  tail call void @llvm.assume(i1 %2)
  %threads = zext i32 %1 to i64
  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %_0.i.i16 = icmp ult i32 %3, 2147483647
  tail call void @llvm.assume(i1 %_0.i.i16)
  %4 = zext i32 %3 to i64
  %_1231 = mul nuw nsw i64 %4, %threads
  %_1132 = icmp ult i64 %_1231, %n
  br i1 %_1132, label %bb2.lr.ph, label %bb12

bb2.lr.ph:                                        ; preds = %start
  %_18 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %thread
  %stride.sroa.0.028 = lshr i64 %threads, 1
  %_2029 = icmp eq i64 %stride.sroa.0.028, 0
  %5 = icmp eq i32 %0, 0
  br i1 %_2029, label %bb2.us, label %bb2

bb2.us:                                           ; preds = %bb2.lr.ph, %bb11.us
  %_1234.us = phi i64 [ %_12.us, %bb11.us ], [ %_1231, %bb2.lr.ph ]
  %index.sroa.0.033.us = phi i64 [ %10, %bb11.us ], [ %4, %bb2.lr.ph ]
  %_15.us = add i64 %_1234.us, %thread
  %_39.us = icmp ult i64 %_15.us, %n
  br i1 %_39.us, label %bb19.us, label %bb21.us

bb19.us:                                          ; preds = %bb2.us
  %_40.us = getelementptr inbounds float, float* %x, i64 %_15.us
  %6 = load float, float* %_40.us, align 4
  br label %bb21.us

bb21.us:                                          ; preds = %bb19.us, %bb2.us
  %_14.sroa.0.0.us = phi float [ %6, %bb19.us ], [ 0.000000e+00, %bb2.us ]
  store float %_14.sroa.0.0.us, float* %_18, align 4
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  br i1 %5, label %bb10.us, label %bb11.us

bb10.us:                                          ; preds = %bb21.us
  %_2810.us = load i32, i32* addrspacecast (i32 addrspace(3)* bitcast (%"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile to i32 addrspace(3)*) to i32*), align 4
  %_29.us = getelementptr inbounds float, float* %sums, i64 %index.sroa.0.033.us
  %7 = bitcast float* %_29.us to i32*
  store i32 %_2810.us, i32* %7, align 4
  br label %bb11.us

bb11.us:                                          ; preds = %bb10.us, %bb21.us
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %9 = icmp sgt i32 %8, 0
  tail call void @llvm.assume(i1 %9)
  %_31.us = zext i32 %8 to i64
  %10 = add i64 %index.sroa.0.033.us, %_31.us
  %_12.us = mul i64 %10, %threads
  %_11.us = icmp ult i64 %_12.us, %n
  br i1 %_11.us, label %bb2.us, label %bb12

bb12:                                             ; preds = %bb11, %bb11.us, %start
  ret void

bb2:                                              ; preds = %bb2.lr.ph, %bb11
  %_1234 = phi i64 [ %_12, %bb11 ], [ %_1231, %bb2.lr.ph ]
  %index.sroa.0.033 = phi i64 [ %15, %bb11 ], [ %4, %bb2.lr.ph ]
  %_15 = add i64 %_1234, %thread
  %_39 = icmp ult i64 %_15, %n
  br i1 %_39, label %bb19, label %bb21

bb19:                                             ; preds = %bb2
  %_40 = getelementptr inbounds float, float* %x, i64 %_15
  %11 = load float, float* %_40, align 4
  br label %bb21

bb21:                                             ; preds = %bb2, %bb19
  %_14.sroa.0.0 = phi float [ %11, %bb19 ], [ 0.000000e+00, %bb2 ]
  store float %_14.sroa.0.0, float* %_18, align 4
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  br label %bb4

bb9:                                              ; preds = %bb7
  br i1 %5, label %bb10, label %bb11

bb4:                                              ; preds = %bb21, %bb7
  %stride.sroa.0.030 = phi i64 [ %stride.sroa.0.028, %bb21 ], [ %stride.sroa.0.0, %bb7 ]
  %_22 = icmp ugt i64 %stride.sroa.0.030, %thread
  br i1 %_22, label %bb5, label %bb7

bb10:                                             ; preds = %bb9
  %_2810 = load i32, i32* addrspacecast (i32 addrspace(3)* bitcast (%"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile to i32 addrspace(3)*) to i32*), align 4
  %_29 = getelementptr inbounds float, float* %sums, i64 %index.sroa.0.033
  %12 = bitcast float* %_29 to i32*
  store i32 %_2810, i32* %12, align 4
  br label %bb11

bb11:                                             ; preds = %bb10, %bb9
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  %13 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %14 = icmp sgt i32 %13, 0
  tail call void @llvm.assume(i1 %14)
  %_31 = zext i32 %13 to i64
  %15 = add i64 %index.sroa.0.033, %_31
  %_12 = mul i64 %15, %threads
  %_11 = icmp ult i64 %_12, %n
  br i1 %_11, label %bb2, label %bb12

bb5:                                              ; preds = %bb4
  %_26 = add nuw nsw i64 %stride.sroa.0.030, %thread
  %_25 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_26
  %_24 = load float, float* %_25, align 4
  %16 = load float, float* %_18, align 4
  %17 = fadd float %_24, %16
  store float %17, float* %_18, align 4
  br label %bb7

bb7:                                              ; preds = %bb4, %bb5
  tail call void asm sideeffect "barrier.sync 0;", "~{memory}"() #0, !srcloc !2
  %stride.sroa.0.0 = lshr i64 %stride.sroa.0.030, 1
  %_20 = icmp eq i64 %stride.sroa.0.0, 0
  br i1 %_20, label %bb9, label %bb4
}

; Function Attrs: nounwind
declare void @llvm.assume(i1) #0

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #1

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #1

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() unnamed_addr #1

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #1

attributes #0 = { nounwind }
attributes #1 = { nounwind readnone }

!nvvm.annotations = !{!0, !1}

!0 = !{void (float*, i64, float*)* @stencil3, !"kernel", i32 1}
!1 = !{void (float*, i64, float*)* @tile_sums, !"kernel", i32 1}
!2 = !{i32 1551}
