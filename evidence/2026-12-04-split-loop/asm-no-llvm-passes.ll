; ModuleID = 'kernels.b66bfefa89a51093-cgu.0'
source_filename = "kernels.b66bfefa89a51093-cgu.0"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%"core::cell::UnsafeCell<[f32; 0]>" = type { [0 x float] }
%"core::ops::RangeInclusive<u32>" = type { i32, i32, i8, [3 x i8] }

@probe_tile = external addrspace(3) global %"core::cell::UnsafeCell<[f32; 0]>"
@"private$0" = private unnamed_addr constant <{ [8 x i8] }> <{ [8 x i8] c"\00\00\00\00\00\04\00\00" }>, align 4
@"private$1" = private unnamed_addr constant <{ [9 x i8], [3 x i8] }> <{ [9 x i8] c"\01\00\00\00\00\04\00\00\00", [3 x i8] undef }>, align 4
@"private$2" = private unnamed_addr constant <{ [9 x i8], [3 x i8] }> <{ [9 x i8] c"\01\00\00\00\FF\FF\FF\7F\00", [3 x i8] undef }>, align 4
@"private$3" = private unnamed_addr constant <{ [8 x i8] }> <{ [8 x i8] c"\00\00\00\00\FF\FF\FF\7F" }>, align 4
@"private$4" = private unnamed_addr constant <{ [8 x i8] }> <{ [8 x i8] c"\00\00\00\00\00\04\00\00" }>, align 4
@"private$5" = private unnamed_addr constant <{ [9 x i8], [3 x i8] }> <{ [9 x i8] c"\01\00\00\00\00\04\00\00\00", [3 x i8] undef }>, align 4
@"private$6" = private unnamed_addr constant <{ [8 x i8] }> <{ [8 x i8] c"\00\00\00\00\FF\FF\FF\7F" }>, align 4
@"private$7" = private unnamed_addr constant <{ [9 x i8], [3 x i8] }> <{ [9 x i8] c"\01\00\00\00\FF\FF\FF\7F\00", [3 x i8] undef }>, align 4

declare void @__rust_eh_personality()

; <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
; Function Attrs: inlinehint nounwind
define internal zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range14RangeInclusivemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) %self, i32* noalias readonly align 4 dereferenceable(4) %item) unnamed_addr #0 {
start:
  %_8 = alloca [16 x i8], align 8
  %_4 = alloca [16 x i8], align 8
  %_3 = alloca [1 x i8], align 1
  %_0 = alloca [1 x i8], align 1
  %0 = bitcast [1 x i8]* %_3 to i8*
  call void @llvm.lifetime.start.p0i8(i64 1, i8* %0)
  %1 = bitcast [16 x i8]* %_4 to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %1)
; call <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::start_bound
  %2 = call { i64, i8* } @_RNvXsm_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_14RangeInclusivemEINtB5_11RangeBoundsmE11start_boundCsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) %self)
  %3 = extractvalue { i64, i8* } %2, 0
  %4 = extractvalue { i64, i8* } %2, 1
  %5 = bitcast [16 x i8]* %_4 to i64*
  store i64 %3, i64* %5, align 8
  %6 = bitcast [16 x i8]* %_4 to i8*
  %7 = getelementptr inbounds i8, i8* %6, i64 8
  %8 = bitcast i8* %7 to i8**
  store i8* %4, i8** %8, align 8
  %9 = bitcast [16 x i8]* %_4 to i64*
  %_5 = load i64, i64* %9, align 8, !range !2
  %10 = bitcast [16 x i8]* %_4 to i8*
  %11 = getelementptr inbounds i8, i8* %10, i64 8
  %12 = bitcast i8* %11 to i8**
  %13 = load i8*, i8** %12, align 8
  switch i64 %_5, label %bb2 [
    i64 0, label %bb5
    i64 1, label %bb4
    i64 2, label %bb3
  ]

bb2:                                              ; preds = %bb7, %start
  unreachable

bb5:                                              ; preds = %start
  %14 = bitcast [16 x i8]* %_4 to i8*
  %15 = getelementptr inbounds i8, i8* %14, i64 8
  %16 = bitcast i8* %15 to i32**
  %start1 = load i32*, i32** %16, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::le
  %17 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2le(i32* noalias readonly align 4 dereferenceable(4) %start1, i32* noalias readonly align 4 dereferenceable(4) %item)
  %18 = zext i1 %17 to i8
  %19 = bitcast [1 x i8]* %_3 to i8*
  store i8 %18, i8* %19, align 1
  br label %bb6

bb4:                                              ; preds = %start
  %20 = bitcast [16 x i8]* %_4 to i8*
  %21 = getelementptr inbounds i8, i8* %20, i64 8
  %22 = bitcast i8* %21 to i32**
  %start2 = load i32*, i32** %22, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::lt
  %23 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2lt(i32* noalias readonly align 4 dereferenceable(4) %start2, i32* noalias readonly align 4 dereferenceable(4) %item)
  %24 = zext i1 %23 to i8
  %25 = bitcast [1 x i8]* %_3 to i8*
  store i8 %24, i8* %25, align 1
  br label %bb6

bb3:                                              ; preds = %start
  br label %bb7

bb6:                                              ; preds = %bb4, %bb5
  %26 = bitcast [1 x i8]* %_3 to i8*
  %27 = load i8, i8* %26, align 1, !range !4
  %28 = trunc i8 %27 to i1
  br i1 %28, label %bb7, label %bb8

bb8:                                              ; preds = %bb6
  %29 = bitcast [16 x i8]* %_4 to i8*
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %29)
  %30 = bitcast [1 x i8]* %_0 to i8*
  store i8 0, i8* %30, align 1
  br label %bb14

bb7:                                              ; preds = %bb3, %bb6
  %31 = bitcast [16 x i8]* %_4 to i8*
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %31)
  %32 = bitcast [16 x i8]* %_8 to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %32)
; call <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::end_bound
  %33 = call { i64, i8* } @_RNvXsm_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_14RangeInclusivemEINtB5_11RangeBoundsmE9end_boundCsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) %self)
  %34 = extractvalue { i64, i8* } %33, 0
  %35 = extractvalue { i64, i8* } %33, 1
  %36 = bitcast [16 x i8]* %_8 to i64*
  store i64 %34, i64* %36, align 8
  %37 = bitcast [16 x i8]* %_8 to i8*
  %38 = getelementptr inbounds i8, i8* %37, i64 8
  %39 = bitcast i8* %38 to i8**
  store i8* %35, i8** %39, align 8
  %40 = bitcast [16 x i8]* %_8 to i64*
  %_9 = load i64, i64* %40, align 8, !range !2
  %41 = bitcast [16 x i8]* %_8 to i8*
  %42 = getelementptr inbounds i8, i8* %41, i64 8
  %43 = bitcast i8* %42 to i8**
  %44 = load i8*, i8** %43, align 8
  switch i64 %_9, label %bb2 [
    i64 0, label %bb12
    i64 1, label %bb11
    i64 2, label %bb10
  ]

bb14:                                             ; preds = %bb13, %bb8
  %45 = bitcast [1 x i8]* %_3 to i8*
  call void @llvm.lifetime.end.p0i8(i64 1, i8* %45)
  %46 = bitcast [1 x i8]* %_0 to i8*
  %47 = load i8, i8* %46, align 1, !range !4
  %48 = trunc i8 %47 to i1
  ret i1 %48

bb12:                                             ; preds = %bb7
  %49 = bitcast [16 x i8]* %_8 to i8*
  %50 = getelementptr inbounds i8, i8* %49, i64 8
  %51 = bitcast i8* %50 to i32**
  %end = load i32*, i32** %51, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::le
  %52 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2le(i32* noalias readonly align 4 dereferenceable(4) %item, i32* noalias readonly align 4 dereferenceable(4) %end)
  %53 = zext i1 %52 to i8
  %54 = bitcast [1 x i8]* %_0 to i8*
  store i8 %53, i8* %54, align 1
  br label %bb13

bb11:                                             ; preds = %bb7
  %55 = bitcast [16 x i8]* %_8 to i8*
  %56 = getelementptr inbounds i8, i8* %55, i64 8
  %57 = bitcast i8* %56 to i32**
  %end3 = load i32*, i32** %57, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::lt
  %58 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2lt(i32* noalias readonly align 4 dereferenceable(4) %item, i32* noalias readonly align 4 dereferenceable(4) %end3)
  %59 = zext i1 %58 to i8
  %60 = bitcast [1 x i8]* %_0 to i8*
  store i8 %59, i8* %60, align 1
  br label %bb13

bb10:                                             ; preds = %bb7
  %61 = bitcast [1 x i8]* %_0 to i8*
  store i8 1, i8* %61, align 1
  br label %bb13

bb13:                                             ; preds = %bb10, %bb11, %bb12
  %62 = bitcast [16 x i8]* %_8 to i8*
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %62)
  br label %bb14
}

; <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
; Function Attrs: inlinehint nounwind
define internal zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range5RangemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) %self, i32* noalias readonly align 4 dereferenceable(4) %item) unnamed_addr #0 {
start:
  %_8 = alloca [16 x i8], align 8
  %_4 = alloca [16 x i8], align 8
  %_3 = alloca [1 x i8], align 1
  %_0 = alloca [1 x i8], align 1
  %0 = bitcast [1 x i8]* %_3 to i8*
  call void @llvm.lifetime.start.p0i8(i64 1, i8* %0)
  %1 = bitcast [16 x i8]* %_4 to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %1)
; call <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::start_bound
  %2 = call { i64, i8* } @_RNvXsk_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_5RangemEINtB5_11RangeBoundsmE11start_boundCsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) %self)
  %3 = extractvalue { i64, i8* } %2, 0
  %4 = extractvalue { i64, i8* } %2, 1
  %5 = bitcast [16 x i8]* %_4 to i64*
  store i64 %3, i64* %5, align 8
  %6 = bitcast [16 x i8]* %_4 to i8*
  %7 = getelementptr inbounds i8, i8* %6, i64 8
  %8 = bitcast i8* %7 to i8**
  store i8* %4, i8** %8, align 8
  %9 = bitcast [16 x i8]* %_4 to i64*
  %_5 = load i64, i64* %9, align 8, !range !2
  %10 = bitcast [16 x i8]* %_4 to i8*
  %11 = getelementptr inbounds i8, i8* %10, i64 8
  %12 = bitcast i8* %11 to i8**
  %13 = load i8*, i8** %12, align 8
  switch i64 %_5, label %bb2 [
    i64 0, label %bb5
    i64 1, label %bb4
    i64 2, label %bb3
  ]

bb2:                                              ; preds = %bb7, %start
  unreachable

bb5:                                              ; preds = %start
  %14 = bitcast [16 x i8]* %_4 to i8*
  %15 = getelementptr inbounds i8, i8* %14, i64 8
  %16 = bitcast i8* %15 to i32**
  %start1 = load i32*, i32** %16, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::le
  %17 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2le(i32* noalias readonly align 4 dereferenceable(4) %start1, i32* noalias readonly align 4 dereferenceable(4) %item)
  %18 = zext i1 %17 to i8
  %19 = bitcast [1 x i8]* %_3 to i8*
  store i8 %18, i8* %19, align 1
  br label %bb6

bb4:                                              ; preds = %start
  %20 = bitcast [16 x i8]* %_4 to i8*
  %21 = getelementptr inbounds i8, i8* %20, i64 8
  %22 = bitcast i8* %21 to i32**
  %start2 = load i32*, i32** %22, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::lt
  %23 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2lt(i32* noalias readonly align 4 dereferenceable(4) %start2, i32* noalias readonly align 4 dereferenceable(4) %item)
  %24 = zext i1 %23 to i8
  %25 = bitcast [1 x i8]* %_3 to i8*
  store i8 %24, i8* %25, align 1
  br label %bb6

bb3:                                              ; preds = %start
  br label %bb7

bb6:                                              ; preds = %bb4, %bb5
  %26 = bitcast [1 x i8]* %_3 to i8*
  %27 = load i8, i8* %26, align 1, !range !4
  %28 = trunc i8 %27 to i1
  br i1 %28, label %bb7, label %bb8

bb8:                                              ; preds = %bb6
  %29 = bitcast [16 x i8]* %_4 to i8*
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %29)
  %30 = bitcast [1 x i8]* %_0 to i8*
  store i8 0, i8* %30, align 1
  br label %bb14

bb7:                                              ; preds = %bb3, %bb6
  %31 = bitcast [16 x i8]* %_4 to i8*
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %31)
  %32 = bitcast [16 x i8]* %_8 to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %32)
; call <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::end_bound
  %33 = call { i64, i8* } @_RNvXsk_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_5RangemEINtB5_11RangeBoundsmE9end_boundCsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) %self)
  %34 = extractvalue { i64, i8* } %33, 0
  %35 = extractvalue { i64, i8* } %33, 1
  %36 = bitcast [16 x i8]* %_8 to i64*
  store i64 %34, i64* %36, align 8
  %37 = bitcast [16 x i8]* %_8 to i8*
  %38 = getelementptr inbounds i8, i8* %37, i64 8
  %39 = bitcast i8* %38 to i8**
  store i8* %35, i8** %39, align 8
  %40 = bitcast [16 x i8]* %_8 to i64*
  %_9 = load i64, i64* %40, align 8, !range !2
  %41 = bitcast [16 x i8]* %_8 to i8*
  %42 = getelementptr inbounds i8, i8* %41, i64 8
  %43 = bitcast i8* %42 to i8**
  %44 = load i8*, i8** %43, align 8
  switch i64 %_9, label %bb2 [
    i64 0, label %bb12
    i64 1, label %bb11
    i64 2, label %bb10
  ]

bb14:                                             ; preds = %bb13, %bb8
  %45 = bitcast [1 x i8]* %_3 to i8*
  call void @llvm.lifetime.end.p0i8(i64 1, i8* %45)
  %46 = bitcast [1 x i8]* %_0 to i8*
  %47 = load i8, i8* %46, align 1, !range !4
  %48 = trunc i8 %47 to i1
  ret i1 %48

bb12:                                             ; preds = %bb7
  %49 = bitcast [16 x i8]* %_8 to i8*
  %50 = getelementptr inbounds i8, i8* %49, i64 8
  %51 = bitcast i8* %50 to i32**
  %end = load i32*, i32** %51, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::le
  %52 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2le(i32* noalias readonly align 4 dereferenceable(4) %item, i32* noalias readonly align 4 dereferenceable(4) %end)
  %53 = zext i1 %52 to i8
  %54 = bitcast [1 x i8]* %_0 to i8*
  store i8 %53, i8* %54, align 1
  br label %bb13

bb11:                                             ; preds = %bb7
  %55 = bitcast [16 x i8]* %_8 to i8*
  %56 = getelementptr inbounds i8, i8* %55, i64 8
  %57 = bitcast i8* %56 to i32**
  %end3 = load i32*, i32** %57, align 8, !nonnull !3
; call <u32 as core::cmp::PartialOrd>::lt
  %58 = call zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2lt(i32* noalias readonly align 4 dereferenceable(4) %item, i32* noalias readonly align 4 dereferenceable(4) %end3)
  %59 = zext i1 %58 to i8
  %60 = bitcast [1 x i8]* %_0 to i8*
  store i8 %59, i8* %60, align 1
  br label %bb13

bb10:                                             ; preds = %bb7
  %61 = bitcast [1 x i8]* %_0 to i8*
  store i8 1, i8* %61, align 1
  br label %bb13

bb13:                                             ; preds = %bb10, %bb11, %bb12
  %62 = bitcast [16 x i8]* %_8 to i8*
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %62)
  br label %bb14
}

; <u32 as core::cmp::PartialOrd>::le
; Function Attrs: alwaysinline nounwind
define internal zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2le(i32* noalias readonly align 4 dereferenceable(4) %self, i32* noalias readonly align 4 dereferenceable(4) %other) unnamed_addr #1 {
start:
  %_3 = load i32, i32* %self, align 4
  %_4 = load i32, i32* %other, align 4
  %_0 = icmp ule i32 %_3, %_4
  ret i1 %_0
}

; <u32 as core::cmp::PartialOrd>::lt
; Function Attrs: alwaysinline nounwind
define internal zeroext i1 @_RNvXs10_NtNtCs6w6tGgP1ZRb_4core3cmp5implsmNtB8_10PartialOrd2lt(i32* noalias readonly align 4 dereferenceable(4) %self, i32* noalias readonly align 4 dereferenceable(4) %other) unnamed_addr #1 {
start:
  %_3 = load i32, i32* %self, align 4
  %_4 = load i32, i32* %other, align 4
  %_0 = icmp ult i32 %_3, %_4
  ret i1 %_0
}

; <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::start_bound
; Function Attrs: nounwind
define internal { i64, i8* } @_RNvXsk_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_5RangemEINtB5_11RangeBoundsmE11start_boundCsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) %self) unnamed_addr #2 {
start:
  %0 = icmp ne { i32, i32 }* %self, null
  call void @llvm.assume(i1 %0)
  %_0.1 = bitcast { i32, i32 }* %self to i8*
  %1 = insertvalue { i64, i8* } { i64 0, i8* undef }, i8* %_0.1, 1
  ret { i64, i8* } %1
}

; <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::end_bound
; Function Attrs: nounwind
define internal { i64, i8* } @_RNvXsk_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_5RangemEINtB5_11RangeBoundsmE9end_boundCsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) %self) unnamed_addr #2 {
start:
  %0 = bitcast { i32, i32 }* %self to i8*
  %_2 = getelementptr inbounds i8, i8* %0, i64 4
  %1 = icmp ne i8* %_2, null
  call void @llvm.assume(i1 %1)
  %2 = insertvalue { i64, i8* } { i64 1, i8* undef }, i8* %_2, 1
  ret { i64, i8* } %2
}

; <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::start_bound
; Function Attrs: nounwind
define internal { i64, i8* } @_RNvXsm_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_14RangeInclusivemEINtB5_11RangeBoundsmE11start_boundCsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) %self) unnamed_addr #2 {
start:
  %0 = icmp ne %"core::ops::RangeInclusive<u32>"* %self, null
  call void @llvm.assume(i1 %0)
  %_0.1 = bitcast %"core::ops::RangeInclusive<u32>"* %self to i8*
  %1 = insertvalue { i64, i8* } { i64 0, i8* undef }, i8* %_0.1, 1
  ret { i64, i8* } %1
}

; <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::end_bound
; Function Attrs: nounwind
define internal { i64, i8* } @_RNvXsm_NtNtCs6w6tGgP1ZRb_4core3ops5rangeINtB5_14RangeInclusivemEINtB5_11RangeBoundsmE9end_boundCsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) %self) unnamed_addr #2 {
start:
  %_0 = alloca [16 x i8], align 8
  %0 = bitcast %"core::ops::RangeInclusive<u32>"* %self to i8*
  %1 = getelementptr inbounds i8, i8* %0, i64 8
  %2 = load i8, i8* %1, align 4, !range !4
  %_2 = trunc i8 %2 to i1
  br i1 %_2, label %bb1, label %bb2

bb2:                                              ; preds = %start
  %3 = bitcast %"core::ops::RangeInclusive<u32>"* %self to i8*
  %_4 = getelementptr inbounds i8, i8* %3, i64 4
  %4 = bitcast [16 x i8]* %_0 to i8*
  %5 = getelementptr inbounds i8, i8* %4, i64 8
  %6 = bitcast i8* %5 to i8**
  store i8* %_4, i8** %6, align 8
  %7 = bitcast [16 x i8]* %_0 to i64*
  store i64 0, i64* %7, align 8
  br label %bb3

bb1:                                              ; preds = %start
  %8 = bitcast %"core::ops::RangeInclusive<u32>"* %self to i8*
  %_3 = getelementptr inbounds i8, i8* %8, i64 4
  %9 = bitcast [16 x i8]* %_0 to i8*
  %10 = getelementptr inbounds i8, i8* %9, i64 8
  %11 = bitcast i8* %10 to i8**
  store i8* %_3, i8** %11, align 8
  %12 = bitcast [16 x i8]* %_0 to i64*
  store i64 1, i64* %12, align 8
  br label %bb3

bb3:                                              ; preds = %bb1, %bb2
  %13 = bitcast [16 x i8]* %_0 to i64*
  %14 = load i64, i64* %13, align 8, !range !2
  %15 = bitcast [16 x i8]* %_0 to i8*
  %16 = getelementptr inbounds i8, i8* %15, i64 8
  %17 = bitcast i8* %16 to i8**
  %18 = load i8*, i8** %17, align 8
  %19 = insertvalue { i64, i8* } undef, i64 %14, 0
  %20 = insertvalue { i64, i8* } %19, i8* %18, 1
  ret { i64, i8* } %20
}

; Function Attrs: nounwind
define void @stencil3(float* %x, i64 %n, float* %y) unnamed_addr #2 {
start:
  %_25 = alloca [4 x i8], align 4
  %_22 = alloca [4 x i8], align 4
  %_19 = alloca [4 x i8], align 4
  %_14 = alloca [4 x i8], align 4
  %base = alloca [8 x i8], align 8
  %_11 = alloca [4 x i8], align 4
  %_8 = alloca [4 x i8], align 4
  %_6 = alloca [4 x i8], align 4
  %0 = bitcast [4 x i8]* %_6 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0)
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = bitcast [4 x i8]* %_6 to i32*
  store i32 %1, i32* %2, align 4
  %3 = bitcast [4 x i8]* %_6 to i32*
; call <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_38 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range5RangemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) bitcast (<{ [8 x i8] }>* @"private$0" to { i32, i32 }*), i32* noalias readonly align 4 dereferenceable(4) %3)
  call void @llvm.assume(i1 %_38)
  %4 = bitcast [4 x i8]* %_6 to i32*
  %5 = load i32, i32* %4, align 4
  %thread = zext i32 %5 to i64
  %6 = bitcast [4 x i8]* %_6 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %6)
  %7 = bitcast [4 x i8]* %_8 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %7)
  %8 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %9 = bitcast [4 x i8]* %_8 to i32*
  store i32 %8, i32* %9, align 4
  %10 = bitcast [4 x i8]* %_8 to i32*
; call <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_40 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range14RangeInclusivemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) bitcast (<{ [9 x i8], [3 x i8] }>* @"private$1" to %"core::ops::RangeInclusive<u32>"*), i32* noalias readonly align 4 dereferenceable(4) %10)
  call void @llvm.assume(i1 %_40)
  %11 = bitcast [4 x i8]* %_8 to i32*
  %12 = load i32, i32* %11, align 4
  %threads = zext i32 %12 to i64
  %13 = bitcast [4 x i8]* %_8 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %13)
  %14 = bitcast [4 x i8]* %_11 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %14)
  %15 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %16 = bitcast [4 x i8]* %_11 to i32*
  store i32 %15, i32* %16, align 4
  %17 = bitcast [4 x i8]* %_11 to i32*
; call <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_42 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range14RangeInclusivemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) bitcast (<{ [9 x i8], [3 x i8] }>* @"private$2" to %"core::ops::RangeInclusive<u32>"*), i32* noalias readonly align 4 dereferenceable(4) %17)
  call void @llvm.assume(i1 %_42)
  %18 = bitcast [4 x i8]* %_11 to i32*
  %19 = load i32, i32* %18, align 4
  %_10 = zext i32 %19 to i64
  %20 = bitcast [4 x i8]* %_11 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %20)
  %step = mul i64 %_10, %threads
  %21 = bitcast [8 x i8]* %base to i8*
  call void @llvm.lifetime.start.p0i8(i64 8, i8* %21)
  %22 = bitcast [4 x i8]* %_14 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %22)
  %23 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %24 = bitcast [4 x i8]* %_14 to i32*
  store i32 %23, i32* %24, align 4
  %25 = bitcast [4 x i8]* %_14 to i32*
; call <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_44 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range5RangemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) bitcast (<{ [8 x i8] }>* @"private$3" to { i32, i32 }*), i32* noalias readonly align 4 dereferenceable(4) %25)
  call void @llvm.assume(i1 %_44)
  %26 = bitcast [4 x i8]* %_14 to i32*
  %27 = load i32, i32* %26, align 4
  %_13 = zext i32 %27 to i64
  %28 = bitcast [4 x i8]* %_14 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %28)
  %29 = mul i64 %_13, %threads
  %30 = bitcast [8 x i8]* %base to i64*
  store i64 %29, i64* %30, align 8
  br label %bb1

bb1:                                              ; preds = %bb6, %start
  %31 = bitcast [8 x i8]* %base to i64*
  %_16 = load i64, i64* %31, align 8
  %_15 = icmp ult i64 %_16, %n
  br i1 %_15, label %bb2, label %bb7

bb7:                                              ; preds = %bb1
  %32 = bitcast [8 x i8]* %base to i8*
  call void @llvm.lifetime.end.p0i8(i64 8, i8* %32)
  ret void

bb2:                                              ; preds = %bb1
  %33 = bitcast [8 x i8]* %base to i64*
  %_18 = load i64, i64* %33, align 8
  %i = add i64 %_18, %thread
  %34 = bitcast [4 x i8]* %_19 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %34)
  %_46 = icmp ult i64 %i, %n
  br i1 %_46, label %bb16, label %bb17

bb17:                                             ; preds = %bb2
  %35 = bitcast [4 x i8]* %_19 to float*
  store float 0.000000e+00, float* %35, align 4
  br label %bb18

bb16:                                             ; preds = %bb2
  %_47 = getelementptr inbounds float, float* %x, i64 %i
  %36 = load float, float* %_47, align 4
  %37 = bitcast [4 x i8]* %_19 to float*
  store float %36, float* %37, align 4
  br label %bb18

bb18:                                             ; preds = %bb16, %bb17
  %_21 = add i64 %thread, 1
  %_20 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_21
  %38 = bitcast [4 x i8]* %_19 to float*
  %39 = load float, float* %38, align 4
  store float %39, float* %_20, align 4
  %40 = bitcast [4 x i8]* %_19 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %40)
  %41 = icmp eq i64 %thread, 0
  br i1 %41, label %bb3, label %bb4

bb3:                                              ; preds = %bb18
  %42 = bitcast [4 x i8]* %_22 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %42)
  %43 = bitcast [8 x i8]* %base to i64*
  %_24 = load i64, i64* %43, align 8
  %_23 = sub i64 %_24, 1
  %_48 = icmp ult i64 %_23, %n
  br i1 %_48, label %bb19, label %bb20

bb4:                                              ; preds = %bb24, %bb18
  call void asm sideeffect "barrier.sync 0;", "~{memory}"(), !srcloc !5
  br i1 %_46, label %bb5, label %bb6

bb20:                                             ; preds = %bb3
  %44 = bitcast [4 x i8]* %_22 to float*
  store float 0.000000e+00, float* %44, align 4
  br label %bb21

bb19:                                             ; preds = %bb3
  %_49 = getelementptr inbounds float, float* %x, i64 %_23
  %45 = load float, float* %_49, align 4
  %46 = bitcast [4 x i8]* %_22 to float*
  store float %45, float* %46, align 4
  br label %bb21

bb21:                                             ; preds = %bb19, %bb20
  %47 = bitcast [4 x i8]* %_22 to float*
  %48 = load float, float* %47, align 4
  store float %48, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), align 4
  %49 = bitcast [4 x i8]* %_22 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %49)
  %50 = bitcast [4 x i8]* %_25 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %50)
  %51 = bitcast [8 x i8]* %base to i64*
  %_27 = load i64, i64* %51, align 8
  %_26 = add i64 %_27, %threads
  %_50 = icmp ult i64 %_26, %n
  br i1 %_50, label %bb22, label %bb23

bb23:                                             ; preds = %bb21
  %52 = bitcast [4 x i8]* %_25 to float*
  store float 0.000000e+00, float* %52, align 4
  br label %bb24

bb22:                                             ; preds = %bb21
  %_51 = getelementptr inbounds float, float* %x, i64 %_26
  %53 = load float, float* %_51, align 4
  %54 = bitcast [4 x i8]* %_25 to float*
  store float %53, float* %54, align 4
  br label %bb24

bb24:                                             ; preds = %bb22, %bb23
  %_29 = add i64 %threads, 1
  %_28 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_29
  %55 = bitcast [4 x i8]* %_25 to float*
  %56 = load float, float* %55, align 4
  store float %56, float* %_28, align 4
  %57 = bitcast [4 x i8]* %_25 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %57)
  br label %bb4

bb6:                                              ; preds = %bb5, %bb4
  call void asm sideeffect "barrier.sync 0;", "~{memory}"(), !srcloc !5
  %58 = bitcast [8 x i8]* %base to i64*
  %59 = load i64, i64* %58, align 8
  %60 = add i64 %59, %step
  %61 = bitcast [8 x i8]* %base to i64*
  store i64 %60, i64* %61, align 8
  br label %bb1

bb5:                                              ; preds = %bb4
  %_32 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %thread
  %_31 = load float, float* %_32, align 4
  %_33 = load float, float* %_20, align 4
  %_30 = fadd float %_31, %_33
  %_36 = add i64 %thread, 2
  %_35 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_36
  %_34 = load float, float* %_35, align 4
  %_37 = getelementptr inbounds float, float* %y, i64 %i
  %62 = fadd float %_30, %_34
  store float %62, float* %_37, align 4
  br label %bb6
}

; Function Attrs: nounwind
define void @tile_sums(float* %x, i64 %n, float* %sums) unnamed_addr #2 {
start:
  %_32 = alloca [4 x i8], align 4
  %stride = alloca [8 x i8], align 8
  %_14 = alloca [4 x i8], align 4
  %_10 = alloca [4 x i8], align 4
  %index = alloca [8 x i8], align 8
  %_8 = alloca [4 x i8], align 4
  %_6 = alloca [4 x i8], align 4
  %0 = bitcast [4 x i8]* %_6 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0)
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = bitcast [4 x i8]* %_6 to i32*
  store i32 %1, i32* %2, align 4
  %3 = bitcast [4 x i8]* %_6 to i32*
; call <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_33 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range5RangemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) bitcast (<{ [8 x i8] }>* @"private$4" to { i32, i32 }*), i32* noalias readonly align 4 dereferenceable(4) %3)
  call void @llvm.assume(i1 %_33)
  %4 = bitcast [4 x i8]* %_6 to i32*
  %5 = load i32, i32* %4, align 4
  %thread = zext i32 %5 to i64
  %6 = bitcast [4 x i8]* %_6 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %6)
  %7 = bitcast [4 x i8]* %_8 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %7)
  %8 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %9 = bitcast [4 x i8]* %_8 to i32*
  store i32 %8, i32* %9, align 4
  %10 = bitcast [4 x i8]* %_8 to i32*
; call <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_35 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range14RangeInclusivemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) bitcast (<{ [9 x i8], [3 x i8] }>* @"private$5" to %"core::ops::RangeInclusive<u32>"*), i32* noalias readonly align 4 dereferenceable(4) %10)
  call void @llvm.assume(i1 %_35)
  %11 = bitcast [4 x i8]* %_8 to i32*
  %12 = load i32, i32* %11, align 4
  %threads = zext i32 %12 to i64
  %13 = bitcast [4 x i8]* %_8 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %13)
  %14 = bitcast [8 x i8]* %index to i8*
  call void @llvm.lifetime.start.p0i8(i64 8, i8* %14)
  %15 = bitcast [4 x i8]* %_10 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %15)
  %16 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %17 = bitcast [4 x i8]* %_10 to i32*
  store i32 %16, i32* %17, align 4
  %18 = bitcast [4 x i8]* %_10 to i32*
; call <core::ops::range::Range<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_37 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range5RangemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels({ i32, i32 }* noalias readonly align 4 dereferenceable(8) bitcast (<{ [8 x i8] }>* @"private$6" to { i32, i32 }*), i32* noalias readonly align 4 dereferenceable(4) %18)
  call void @llvm.assume(i1 %_37)
  %19 = bitcast [4 x i8]* %_10 to i32*
  %20 = load i32, i32* %19, align 4
  %21 = zext i32 %20 to i64
  %22 = bitcast [8 x i8]* %index to i64*
  store i64 %21, i64* %22, align 8
  %23 = bitcast [4 x i8]* %_10 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %23)
  br label %bb1

bb1:                                              ; preds = %bb11, %start
  %24 = bitcast [8 x i8]* %index to i64*
  %_13 = load i64, i64* %24, align 8
  %_12 = mul i64 %_13, %threads
  %_11 = icmp ult i64 %_12, %n
  br i1 %_11, label %bb2, label %bb12

bb12:                                             ; preds = %bb1
  %25 = bitcast [8 x i8]* %index to i8*
  call void @llvm.lifetime.end.p0i8(i64 8, i8* %25)
  ret void

bb2:                                              ; preds = %bb1
  %26 = bitcast [4 x i8]* %_14 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %26)
  %27 = bitcast [8 x i8]* %index to i64*
  %_17 = load i64, i64* %27, align 8
  %_16 = mul i64 %_17, %threads
  %_15 = add i64 %_16, %thread
  %_39 = icmp ult i64 %_15, %n
  br i1 %_39, label %bb19, label %bb20

bb20:                                             ; preds = %bb2
  %28 = bitcast [4 x i8]* %_14 to float*
  store float 0.000000e+00, float* %28, align 4
  br label %bb21

bb19:                                             ; preds = %bb2
  %_40 = getelementptr inbounds float, float* %x, i64 %_15
  %29 = load float, float* %_40, align 4
  %30 = bitcast [4 x i8]* %_14 to float*
  store float %29, float* %30, align 4
  br label %bb21

bb21:                                             ; preds = %bb19, %bb20
  %_18 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %thread
  %31 = bitcast [4 x i8]* %_14 to float*
  %32 = load float, float* %31, align 4
  store float %32, float* %_18, align 4
  %33 = bitcast [4 x i8]* %_14 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %33)
  call void asm sideeffect "barrier.sync 0;", "~{memory}"(), !srcloc !5
  %34 = bitcast [8 x i8]* %stride to i8*
  call void @llvm.lifetime.start.p0i8(i64 8, i8* %34)
  %35 = udiv i64 %threads, 2
  %36 = bitcast [8 x i8]* %stride to i64*
  store i64 %35, i64* %36, align 8
  br label %bb3

bb3:                                              ; preds = %bb7, %bb21
  %37 = bitcast [8 x i8]* %stride to i64*
  %_21 = load i64, i64* %37, align 8
  %_20 = icmp ugt i64 %_21, 0
  br i1 %_20, label %bb4, label %bb9

bb9:                                              ; preds = %bb3
  %38 = icmp eq i64 %thread, 0
  br i1 %38, label %bb10, label %bb11

bb4:                                              ; preds = %bb3
  %39 = bitcast [8 x i8]* %stride to i64*
  %_23 = load i64, i64* %39, align 8
  %_22 = icmp ult i64 %thread, %_23
  br i1 %_22, label %bb5, label %bb6

bb10:                                             ; preds = %bb9
  %_28 = load float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), align 4
  %40 = bitcast [8 x i8]* %index to i64*
  %_30 = load i64, i64* %40, align 8
  %_29 = getelementptr inbounds float, float* %sums, i64 %_30
  store float %_28, float* %_29, align 4
  br label %bb11

bb11:                                             ; preds = %bb10, %bb9
  call void asm sideeffect "barrier.sync 0;", "~{memory}"(), !srcloc !5
  %41 = bitcast [4 x i8]* %_32 to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %41)
  %42 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %43 = bitcast [4 x i8]* %_32 to i32*
  store i32 %42, i32* %43, align 4
  %44 = bitcast [4 x i8]* %_32 to i32*
; call <core::ops::range::RangeInclusive<u32> as core::ops::range::RangeBounds<u32>>::contains::<u32>
  %_41 = call zeroext i1 @_RINvYINtNtNtCs6w6tGgP1ZRb_4core3ops5range14RangeInclusivemEINtB6_11RangeBoundsmE8containsmECsfF1GQUaKxMZ_7kernels(%"core::ops::RangeInclusive<u32>"* noalias readonly align 4 dereferenceable(12) bitcast (<{ [9 x i8], [3 x i8] }>* @"private$7" to %"core::ops::RangeInclusive<u32>"*), i32* noalias readonly align 4 dereferenceable(4) %44)
  call void @llvm.assume(i1 %_41)
  %45 = bitcast [4 x i8]* %_32 to i32*
  %46 = load i32, i32* %45, align 4
  %_31 = zext i32 %46 to i64
  %47 = bitcast [4 x i8]* %_32 to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %47)
  %48 = bitcast [8 x i8]* %index to i64*
  %49 = load i64, i64* %48, align 8
  %50 = add i64 %49, %_31
  %51 = bitcast [8 x i8]* %index to i64*
  store i64 %50, i64* %51, align 8
  %52 = bitcast [8 x i8]* %stride to i8*
  call void @llvm.lifetime.end.p0i8(i64 8, i8* %52)
  br label %bb1

bb6:                                              ; preds = %bb4
  br label %bb7

bb5:                                              ; preds = %bb4
  %53 = bitcast [8 x i8]* %stride to i64*
  %_27 = load i64, i64* %53, align 8
  %_26 = add i64 %thread, %_27
  %_25 = getelementptr inbounds float, float* addrspacecast (float addrspace(3)* getelementptr inbounds (%"core::cell::UnsafeCell<[f32; 0]>", %"core::cell::UnsafeCell<[f32; 0]>" addrspace(3)* @probe_tile, i32 0, i32 0, i32 0) to float*), i64 %_26
  %_24 = load float, float* %_25, align 4
  %54 = load float, float* %_18, align 4
  %55 = fadd float %54, %_24
  store float %55, float* %_18, align 4
  br label %bb7

bb7:                                              ; preds = %bb5, %bb6
  call void asm sideeffect "barrier.sync 0;", "~{memory}"(), !srcloc !5
  %56 = bitcast [8 x i8]* %stride to i64*
  %57 = load i64, i64* %56, align 8
  %58 = udiv i64 %57, 2
  %59 = bitcast [8 x i8]* %stride to i64*
  store i64 %58, i64* %59, align 8
  br label %bb3
}

; Function Attrs: argmemonly nounwind
declare void @llvm.lifetime.start.p0i8(i64, i8* nocapture) #3

; Function Attrs: argmemonly nounwind
declare void @llvm.lifetime.end.p0i8(i64, i8* nocapture) #3

; Function Attrs: nounwind
declare void @llvm.assume(i1) #2

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x() unnamed_addr #4

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x() unnamed_addr #4

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() unnamed_addr #4

; Function Attrs: nounwind readnone
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() unnamed_addr #4

attributes #0 = { inlinehint nounwind }
attributes #1 = { alwaysinline nounwind }
attributes #2 = { nounwind }
attributes #3 = { argmemonly nounwind }
attributes #4 = { nounwind readnone }

!nvvm.annotations = !{!0, !1}

!0 = !{void (float*, i64, float*)* @stencil3, !"kernel", i32 1}
!1 = !{void (float*, i64, float*)* @tile_sums, !"kernel", i32 1}
!2 = !{i64 0, i64 3}
!3 = !{}
!4 = !{i8 0, i8 2}
!5 = !{i32 1551}
